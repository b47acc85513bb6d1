// Cases whose work follows addresses, for the callgrind backend's layout
// test (simulate_layout_test.cc): pointer-keyed std::unordered_map and
// std::set, an absl::flat_hash_set of pointers, an Abseil table whose
// backing store is over glibc's mmap threshold (128 KiB: mallopt(3)
// M_MMAP_THRESHOLD), and blocks over that threshold hashed by address. Their
// simulated counts must not change with the mapping history before them
// (BM_LayoutAMaps, which runs first, maps and unmaps blocks of many sizes
// and keeps some), with the binary's path or the environment.
#include <pmubench/pmubench.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace {

// Maps and unmaps blocks of 1 to 97 pages, and keeps every third mapped
// until the process exits: the address space later cases map into is
// another one than when this case does not run.
void BM_LayoutAMaps(pmubench::State& state) {
  const size_t page = 4096;
  for (auto _ : state) {
    for (size_t i = 1; i < 40; ++i) {
      const size_t bytes = page * (1 + (i * 37) % 97);
      void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) continue;
      static_cast<char*>(block)[0] = 1;
      if (i % 3 != 0) munmap(block, bytes);
    }
    std::free(std::malloc(300 << 10));
  }
}
PMU_BENCHMARK(BM_LayoutAMaps);

// range(0) heap objects of 48 bytes, each its own allocation: their
// addresses are the keys.
std::vector<std::unique_ptr<char[]>> Objects(int64_t count) {
  std::vector<std::unique_ptr<char[]>> objects;
  for (int64_t i = 0; i < count; ++i) objects.emplace_back(new char[48]);
  return objects;
}

template <typename Set>
void InsertAndFindAll(const std::vector<std::unique_ptr<char[]>>& objects) {
  Set set;
  for (const auto& object : objects) set.insert(object.get());
  size_t found = 0;
  for (const auto& object : objects) found += set.count(object.get());
  benchmark::DoNotOptimize(found);
}

void BM_LayoutStdUnorderedMapOfPointers(pmubench::State& state) {
  const auto objects = Objects(state.range(0));
  for (auto _ : state) {
    std::unordered_map<const void*, int> map;
    int i = 0;
    for (const auto& object : objects) map.emplace(object.get(), i++);
    int64_t sum = 0;
    for (const auto& object : objects) sum += map.find(object.get())->second;
    benchmark::DoNotOptimize(sum);
  }
}
PMU_BENCHMARK(BM_LayoutStdUnorderedMapOfPointers)->Arg(1000);

void BM_LayoutStdSetOfPointers(pmubench::State& state) {
  const auto objects = Objects(state.range(0));
  for (auto _ : state) InsertAndFindAll<std::set<const void*>>(objects);
}
PMU_BENCHMARK(BM_LayoutStdSetOfPointers)->Arg(1000);

void BM_LayoutAbslSetOfPointers(pmubench::State& state) {
  const auto objects = Objects(state.range(0));
  for (auto _ : state) {
    InsertAndFindAll<absl::flat_hash_set<const void*>>(objects);
  }
}
PMU_BENCHMARK(BM_LayoutAbslSetOfPointers)->Arg(1000);

// range(0) integer keys: from 8,192 on the table's backing store is over
// 128 KiB, so malloc maps it (and Abseil's per-table salt is taken from
// that address: raw_hash_set.h, PerTableSalt).
void BM_LayoutAbslLargeTable(pmubench::State& state) {
  for (auto _ : state) {
    absl::flat_hash_map<uint64_t, uint64_t> table;
    for (int64_t i = 0; i < state.range(0); ++i) {
      table[static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL] = i;
    }
    benchmark::DoNotOptimize(table);
  }
}
PMU_BENCHMARK(BM_LayoutAbslLargeTable)->Arg(1000)->Arg(20000);

// Blocks of 160 to 544 KiB, each mapped by malloc, their addresses hashed
// into a std::unordered_set and an absl::flat_hash_set.
void BM_LayoutBigBlocksByAddress(pmubench::State& state) {
  for (auto _ : state) {
    std::vector<std::unique_ptr<char[]>> blocks;
    std::unordered_set<const void*> std_set;
    absl::flat_hash_set<const void*> absl_set;
    for (size_t i = 0; i < 16; ++i) {
      blocks.emplace_back(new char[(160 + 24 * i) << 10]);
      std_set.insert(blocks.back().get());
      absl_set.insert(blocks.back().get());
    }
    benchmark::DoNotOptimize(std_set.size() + absl_set.size());
  }
}
PMU_BENCHMARK(BM_LayoutBigBlocksByAddress);

}  // namespace
