// Branch prediction: the same threshold sum (add the element when it is >= 128)
// over bytes in four orders. Each iteration handles ONE element, so counters
// read "per element".
//
//   BM_BranchSorted       sorted values: the branch is not-taken for the first
//                         half, taken for the second; the predictor is right
//                         almost always.
//   BM_BranchAlternating  0, 255, 0, 255, ...: taken half the time like the
//                         shuffled case, but in a pattern the predictor learns.
//   BM_BranchShuffled     uniformly random values: the outcome is a coin flip.
//   BM_BranchFree         shuffled values, summed with a mask instead of a
//                         branch: nothing to predict.
//
// On hardware with a PMU expect branch-misses per iteration ~0 for sorted,
// alternating and branch-free, and ~0.5 for shuffled; branches ~2 per
// iteration for the branchy variants (the threshold test plus the loop's own
// back edge) and ~1 for branch-free. The shuffled case costs a misprediction
// penalty (15-20 cycles) per miss, so it is several times slower than sorted,
// while the branch-free case runs at the same speed whatever the data.
//
// The branchy variants put an empty `asm volatile` in the taken arm: a block
// with a volatile asm cannot be if-converted, so g++ -O2 keeps a real
// conditional jump instead of a cmov (checked with objdump -d).

#include <pmubench/pmubench.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pmubench::benches {
namespace {

// 32 KiB of bytes fits L1 on current cores, so loads cost the same in every
// variant, yet a random pattern this long is far beyond what a predictor can
// memorise.
constexpr size_t kElements = size_t{1} << 15;
constexpr uint32_t kThreshold = 128;
constexpr char kBranchCounters[] = "branches,branch-misses,cycles,instructions";

std::vector<uint8_t> RandomBytes() {
  std::vector<uint8_t> values(kElements);
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> byte(0, 255);
  for (uint8_t& v : values) v = static_cast<uint8_t>(byte(rng));
  return values;
}

// Walks `values` cyclically, one element per iteration, summing the ones at
// or above kThreshold with a conditional branch.
void SumWithBranch(pmubench::State& state, const std::vector<uint8_t>& values) {
  const uint8_t* data = values.data();
  uint64_t sum = 0;
  size_t i = 0;
  for (auto _ : state) {
    const uint32_t value = data[i];
    if (value >= kThreshold) {
      sum += value;
      asm volatile("");  // Blocks if-conversion: keeps the branch.
    }
    i = (i + 1) & (kElements - 1);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

void BM_BranchSorted(pmubench::State& state) {
  std::vector<uint8_t> values = RandomBytes();
  std::sort(values.begin(), values.end());
  SumWithBranch(state, values);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_BranchSorted, kBranchCounters);

void BM_BranchAlternating(pmubench::State& state) {
  std::vector<uint8_t> values(kElements);
  for (size_t i = 0; i < kElements; ++i) values[i] = (i % 2 == 0) ? 0 : 255;
  SumWithBranch(state, values);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_BranchAlternating, kBranchCounters);

void BM_BranchShuffled(pmubench::State& state) {
  SumWithBranch(state, RandomBytes());
}
PMU_BENCHMARK_WITH_COUNTERS(BM_BranchShuffled, kBranchCounters);

void BM_BranchFree(pmubench::State& state) {
  const std::vector<uint8_t> values = RandomBytes();
  const uint8_t* data = values.data();
  uint64_t sum = 0;
  size_t i = 0;
  for (auto _ : state) {
    const uint64_t value = data[i];
    // All ones when value >= kThreshold, else zero: selects without a jump.
    const uint64_t keep = -static_cast<uint64_t>(value >= kThreshold);
    sum += value & keep;
    i = (i + 1) & (kElements - 1);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}
PMU_BENCHMARK_WITH_COUNTERS(BM_BranchFree, kBranchCounters);

}  // namespace
}  // namespace pmubench::benches
