// Associative containers: absl::flat_hash_map, std::unordered_map,
// absl::btree_map and std::map from uint64_t to uint64_t, random keys.
//
// BM_<Map>Lookup/<n>: ONE successful find of a random present key per
// iteration in a map of n entries (keys visited in a shuffled order), so
// counters read "per lookup". As n grows the map leaves the caches: expect on
// hardware with a PMU
//   - flat_hash_map: ~1 cache miss per lookup once it exceeds the LLC (the
//     control bytes and the slot usually share a line or two) and the flattest
//     time curve;
//   - unordered_map: bucket array, then a separately allocated node: ~2 misses;
//   - std::map: one dependent miss per tree level, log2(n) levels, plus
//     branch-misses on every comparison (~half of them mispredicted) - the
//     slowest at large n;
//   - btree_map: fewer levels (many keys per node), so fewer misses than
//     std::map, but in-node search still mispredicts branches.
// BM_<Map>Insert/<n>: build a map of n random keys from empty (each iteration
// also destroys the map it built). items_per_second is inserts per second;
// node-based maps pay one allocation per insert, hash maps pay rehashes.
// Counters are per map built: divide by n for per-insert figures.
//
// Lookup maps are built once per size (benches/cached_input.h): a
// million-entry std::map takes a noticeable time to build.

#include <pmubench/pmubench.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "benches/cached_input.h"

namespace pmubench::benches {
namespace {

using FlatHashMap = absl::flat_hash_map<uint64_t, uint64_t>;
using UnorderedMap = std::unordered_map<uint64_t, uint64_t>;
using BtreeMap = absl::btree_map<uint64_t, uint64_t>;
using StdMap = std::map<uint64_t, uint64_t>;

constexpr char kContainerCounters[] =
    "cycles,instructions,cache-misses,branch-misses";

// n distinct, well-spread keys in random order. Multiplying by an odd
// constant and xor-shifting are both bijections on uint64_t, so distinct
// inputs 1..n give distinct keys.
std::vector<uint64_t> RandomKeys(size_t n) {
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t key = (i + 1) * 0x9e3779b97f4a7c15ULL;
    keys[i] = key ^ (key >> 31);
  }
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(n));
  return keys;
}

// A map of n entries and the same keys in another random order to look up.
template <typename Map>
struct LookupInput {
  explicit LookupInput(size_t n) : queries(RandomKeys(n)) {
    for (uint64_t key : queries) map.emplace(key, key);
    std::shuffle(queries.begin(), queries.end(), std::mt19937_64(n + 1));
  }
  Map map;
  std::vector<uint64_t> queries;
};

template <typename Map>
void RunLookup(pmubench::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const LookupInput<Map>& input = CachedInput<LookupInput<Map>>(
      state.range(0), [&] { return LookupInput<Map>(n); });
  const Map& map = input.map;
  const uint64_t* queries = input.queries.data();
  uint64_t sum = 0;
  size_t i = 0;
  for (auto _ : state) {
    // Every query is present; reading the value makes the lookup reach the
    // entry's memory, as a real caller would.
    sum += map.find(queries[i])->second;
    if (++i == n) i = 0;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

template <typename Map>
void RunInsert(pmubench::State& state) {
  const std::vector<uint64_t> keys =
      RandomKeys(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    Map map;
    for (uint64_t key : keys) map.emplace(key, key);
    benchmark::DoNotOptimize(map);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(keys.size()));
}

void BM_FlatHashMapLookup(pmubench::State& state) {
  RunLookup<FlatHashMap>(state);
}
void BM_UnorderedMapLookup(pmubench::State& state) {
  RunLookup<UnorderedMap>(state);
}
void BM_BtreeMapLookup(pmubench::State& state) { RunLookup<BtreeMap>(state); }
void BM_StdMapLookup(pmubench::State& state) { RunLookup<StdMap>(state); }
void BM_FlatHashMapInsert(pmubench::State& state) {
  RunInsert<FlatHashMap>(state);
}
void BM_UnorderedMapInsert(pmubench::State& state) {
  RunInsert<UnorderedMap>(state);
}
void BM_BtreeMapInsert(pmubench::State& state) { RunInsert<BtreeMap>(state); }
void BM_StdMapInsert(pmubench::State& state) { RunInsert<StdMap>(state); }

// 16 entries (a cache line or two) to 1 Mi entries (far beyond L2).
void LookupSizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(16)->Range(16, 1 << 20);
}
// Building a map per iteration: up to 64 Ki entries keeps the suite short.
void InsertSizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(16)->Range(16, 1 << 16);
}

PMU_BENCHMARK_WITH_COUNTERS(BM_FlatHashMapLookup, kContainerCounters)
    ->Apply(LookupSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_UnorderedMapLookup, kContainerCounters)
    ->Apply(LookupSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_BtreeMapLookup, kContainerCounters)
    ->Apply(LookupSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_StdMapLookup, kContainerCounters)
    ->Apply(LookupSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_FlatHashMapInsert, kContainerCounters)
    ->Apply(InsertSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_UnorderedMapInsert, kContainerCounters)
    ->Apply(InsertSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_BtreeMapInsert, kContainerCounters)
    ->Apply(InsertSizes);
PMU_BENCHMARK_WITH_COUNTERS(BM_StdMapInsert, kContainerCounters)
    ->Apply(InsertSizes);

}  // namespace
}  // namespace pmubench::benches
