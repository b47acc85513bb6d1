// Memory hierarchy: load latency and streaming cost as the working set grows
// from 4 KiB (L1) to 256 MiB (DRAM).
//
// BM_PointerChase/<bytes> follows a random cyclic permutation of 64-byte
// nodes, one node per cache line (Sattolo's algorithm: one cycle through every
// node, so the walk never settles into a smaller loop). Each iteration is ONE
// dependent load, so time per iteration is the load-to-use latency of the
// level that holds the working set and every counter reads "per load step".
// On hardware with a PMU expect, per iteration:
//   - L1-dcache-load-misses ~0 while the set fits L1 (<= 32-48 KiB), ~1 beyond;
//   - LLC-load-misses ~0 while the set fits the last-level cache, ~1 beyond
//     (and time jumps to DRAM latency, 80-120 ns);
//   - dTLB-load-misses rising from 0 once the set spans more pages than the
//     first-level TLB maps (64-96 entries x 4 KiB, a few hundred KiB), ~1 at
//     256 MiB where even the second-level TLB (1.5-2 K entries) misses.
// Time steps up at each cache boundary: ~1 ns (L1), ~4 ns (L2), 10-30 ns (L3),
// 80+ ns (DRAM).
//
// BM_StreamSequential and BM_StreamRandom read one word from every cache line
// of the same buffer, in address order or in a random order. The random order
// defeats the hardware prefetcher and the TLB, but the loads are independent,
// so the core overlaps many misses: it is slower than sequential yet far
// faster per line than the dependent chase. Counters are per pass; divide by
// the "lines" counter for per-line figures. On hardware expect about one
// L1-dcache-load-miss per line in both orders past L1, LLC-load-misses near 0
// for sequential (prefetched) but ~1 per line for random past the LLC, and
// dTLB-load-misses ~1 per line for random over large sets but ~1 per 64 lines
// (one per 4 KiB page) for sequential.
//
// Buffers are built once per size and shared by Google Benchmark's calls
// (benches/cached_input.h): the 256 MiB ring takes a second to build.

#include <pmubench/pmubench.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "benches/cached_input.h"

namespace pmubench::benches {
namespace {

constexpr size_t kCacheLineBytes = 64;
constexpr char kMemoryCounters[] =
    "L1-dcache-load-misses,LLC-load-misses,dTLB-load-misses";

// One node per cache line, so every step of the chase touches a new line.
struct alignas(kCacheLineBytes) ChaseNode {
  const ChaseNode* next;
};
static_assert(sizeof(ChaseNode) == kCacheLineBytes);

// A ring of nodes linked in the order of a random single-cycle permutation.
class ChaseRing {
 public:
  explicit ChaseRing(size_t bytes) : nodes_(bytes / sizeof(ChaseNode)) {
    // Sattolo's algorithm: like Fisher-Yates but j < i, which yields a
    // permutation made of exactly one cycle through all nodes.
    std::vector<uint32_t> successor(nodes_.size());
    std::iota(successor.begin(), successor.end(), 0);
    std::mt19937_64 rng(42);
    for (size_t i = successor.size() - 1; i > 0; --i) {
      std::uniform_int_distribution<size_t> pick(0, i - 1);
      std::swap(successor[i], successor[pick(rng)]);
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i].next = &nodes_[successor[i]];
    }
  }

  const ChaseNode* start() const { return &nodes_[0]; }

 private:
  std::vector<ChaseNode> nodes_;
};

void BM_PointerChase(pmubench::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const ChaseRing& ring =
      CachedInput<ChaseRing>(state.range(0), [&] { return ChaseRing(bytes); });
  const ChaseNode* node = ring.start();
  for (auto _ : state) {
    // One dependent load per iteration; each load needs the previous one's
    // result, so no step can be skipped, hoisted or overlapped.
    node = node->next;
  }
  benchmark::DoNotOptimize(node);  // The walk's result is used: keep it.
  state.SetItemsProcessed(state.iterations());  // items = load steps
}
PMU_BENCHMARK_WITH_COUNTERS(BM_PointerChase, kMemoryCounters)
    ->ArgName("bytes")  // reports/plot.py draws cache sizes on byte axes
    ->RangeMultiplier(4)
    ->Range(4 << 10, 256 << 20);

// The same chase with every level's loads and misses, and cycles,
// instructions and branches, at once: more events than a core PMU counts
// together (4 to 8 general-purpose counters plus fixed ones), so pmubench
// splits them into groups that fit and that take turns, each batch running
// once per group (the console header names the groups). Every count is
// exact, and each miss ratio comes from one group's run.
#if defined(__aarch64__)
// ARMv8 PMUv3's common events by number (the generic cache names map to
// few of them, and QEMU's emulated PMU has none): BR_PRED, BR_MIS_PRED,
// L1D_CACHE, L1D_CACHE_REFILL, L1D_TLB, L1D_TLB_REFILL, L2D_CACHE,
// L2D_CACHE_REFILL. Raw numbers give no miss ratios.
constexpr char kAllLevelsCounters[] =
    "cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend,"
    "r12,r10,r04,r03,r25,r05,r16,r17";
#else
constexpr char kAllLevelsCounters[] =
    "cycles,instructions,branches,branch-misses,L1-dcache-loads,"
    "L1-dcache-load-misses,LLC-loads,LLC-load-misses,dTLB-loads,"
    "dTLB-load-misses";
#endif

void BM_PointerChaseAllLevels(pmubench::State& state) {
  BM_PointerChase(state);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_PointerChaseAllLevels, kAllLevelsCounters)
    ->ArgName("bytes")
    ->Arg(16 << 10)
    ->Arg(1 << 20)
    ->Arg(64 << 20);

// A buffer of cache lines plus a random visiting order of those lines.
struct StreamBuffer {
  explicit StreamBuffer(size_t bytes)
      : words(bytes / sizeof(uint64_t), 1),
        random_order(bytes / kCacheLineBytes) {
    std::iota(random_order.begin(), random_order.end(), 0);
    std::shuffle(random_order.begin(), random_order.end(), std::mt19937_64(7));
  }
  size_t lines() const { return random_order.size(); }

  std::vector<uint64_t> words;
  std::vector<uint32_t> random_order;  // Line indices, each once.
};

constexpr size_t kWordsPerLine = kCacheLineBytes / sizeof(uint64_t);

void BM_StreamSequential(pmubench::State& state) {
  const StreamBuffer& buffer = CachedInput<StreamBuffer>(
      state.range(0), [&] { return StreamBuffer(state.range(0)); });
  const uint64_t* words = buffer.words.data();
  const size_t lines = buffer.lines();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t line = 0; line < lines; ++line) {
      sum += words[line * kWordsPerLine];
    }
    // The "memory" clobber inside DoNotOptimize tells the compiler the buffer
    // may have changed, so the next pass cannot reuse this pass's sum.
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(state.iterations() * lines * kCacheLineBytes);
  state.counters["lines"] = static_cast<double>(lines);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_StreamSequential, kMemoryCounters)
    ->ArgName("bytes")
    ->RangeMultiplier(16)
    ->Range(16 << 10, 256 << 20);

void BM_StreamRandom(pmubench::State& state) {
  const StreamBuffer& buffer = CachedInput<StreamBuffer>(
      state.range(0), [&] { return StreamBuffer(state.range(0)); });
  const uint64_t* words = buffer.words.data();
  const uint32_t* order = buffer.random_order.data();
  const size_t lines = buffer.lines();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (size_t k = 0; k < lines; ++k) sum += words[order[k] * kWordsPerLine];
    benchmark::DoNotOptimize(sum);  // As above: no reuse across passes.
  }
  state.SetBytesProcessed(state.iterations() * lines * kCacheLineBytes);
  state.counters["lines"] = static_cast<double>(lines);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_StreamRandom, kMemoryCounters)
    ->ArgName("bytes")
    ->RangeMultiplier(16)
    ->Range(16 << 10, 256 << 20);

}  // namespace
}  // namespace pmubench::benches
