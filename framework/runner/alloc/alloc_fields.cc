#include "framework/runner/alloc/alloc_fields.h"

#include <algorithm>
#include <string>

namespace pmubench::internal {
namespace {

void Write(benchmark::State& gb_state, const AllocPerIteration& values,
           benchmark::Counter::Flags per_iteration) {
  const double counts[] = {values.allocs, values.bytes, values.frees};
  for (int i = 0; i < 3; ++i) {
    gb_state.counters[std::string(kAllocFields[i])] =
        benchmark::Counter(counts[i], per_iteration);
  }
  gb_state.counters[std::string(kAllocFields[3])] =
      benchmark::Counter(values.max_bytes);
}

}  // namespace

void WriteAllocations(benchmark::State& gb_state) {
  if (!alloc_counting || gb_state.error_occurred()) return;
  const AllocCounts totals = AllocTotals();
  Write(gb_state,
        {static_cast<double>(totals.allocs),
         static_cast<double>(totals.bytes),
         static_cast<double>(totals.frees),
         static_cast<double>(totals.peak),
         {}},
        benchmark::Counter::kAvgIterations);
}

AllocPerIteration SimulatedAllocations(int64_t n, int64_t iterations_per_step) {
  const AllocCounts* marks = alloc_tally.marks;
  // Segment k's counts are marks[k] - marks[k - 1]; the slope is the 2n
  // segment's minus the n segment's, over n steps.
  const double iterations = static_cast<double>(
      std::max<int64_t>(1, n) * std::max<int64_t>(1, iterations_per_step));
  auto slope = [&](uint64_t AllocCounts::*field) {
    const double shorter =
        static_cast<double>(marks[2].*field - marks[1].*field);
    const double longer =
        static_cast<double>(marks[3].*field - marks[2].*field);
    return (longer - shorter) / iterations;
  };
  return {slope(&AllocCounts::allocs), slope(&AllocCounts::bytes),
          slope(&AllocCounts::frees), static_cast<double>(marks[3].peak),
          SimulatedAllocSites(iterations)};
}

void WriteSimulatedAllocations(benchmark::State& gb_state,
                               const AllocPerIteration& per_iteration) {
  if (!alloc_counting || gb_state.error_occurred()) return;
  Write(gb_state, per_iteration, benchmark::Counter::kAvgThreads);
}

}  // namespace pmubench::internal
