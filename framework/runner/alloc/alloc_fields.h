// The heap-allocation fields of a run (fixed names; Google Benchmark's
// where it has them), written into a batch's benchmark::State counters:
//
//   allocs_per_iter       calls that returned new heap memory, per iteration
//   alloc_bytes_per_iter  bytes those calls asked for, per iteration
//   frees_per_iter        calls that gave heap memory back, per iteration
//   max_bytes_used        the peak of live heap bytes above the batch's
//                         start, each block counted as the usable size of
//                         its request's exact fit in glibc's heap
//                         (interpose.cc: RememberInexact)
//
// Natively the batch's totals are written with kAvgIterations, as every
// counted event is (batch_meter.h), so Google Benchmark divides them by the
// iterations of all the case's threads. Under callgrind the loop's segments
// give the slope per iteration (simulated_meter.h), written per thread with
// kAvgThreads: the same figures. max_bytes_used is summed over the threads
// either way (each thread's own peak), and under callgrind taken over the
// longest measured segment.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_FIELDS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_FIELDS_H_

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "framework/runner/alloc/alloc_sites.h"
#include "framework/runner/alloc/alloc_tally.h"

namespace pmubench::internal {

inline constexpr std::array<std::string_view, 4> kAllocFields = {
    "allocs_per_iter", "alloc_bytes_per_iter", "frees_per_iter",
    "max_bytes_used"};

// After a native batch, on the thread that ran it: this thread's totals,
// unless counting is off or the batch failed.
void WriteAllocations(benchmark::State& gb_state);

// Under callgrind, inside the thread that ran the loop (its tally): the
// slope between the loop's last two segments (n and 2n steps, each step
// `iterations_per_step` iterations), per iteration, and the same slope per
// call site when this batch recorded its sites. Written only when counting
// is on and the batch did not fail.
struct AllocPerIteration {
  double allocs = 0;
  double bytes = 0;
  double frees = 0;
  double max_bytes = 0;
  // Per iteration by call site, when sites are recorded (alloc_sites.h).
  std::vector<AllocSiteCount> sites;
};
AllocPerIteration SimulatedAllocations(int64_t n, int64_t iterations_per_step);
void WriteSimulatedAllocations(benchmark::State& gb_state,
                               const AllocPerIteration& per_iteration);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_FIELDS_H_
