// BatchMeter: the counter side of one batch on one thread. It takes the
// start/stop snapshots around each timed segment of the batch (one segment,
// or more when the case uses PauseTiming), sums the deltas, and at the end
// writes per-iteration counts, derived metrics and the running fraction into
// the batch's benchmark::State counters.
//
// Start() and Stop() are the hot path: one CounterGroup::Snapshot each, no
// allocation, no status. Accumulate() runs after the timer has stopped.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_BATCH_METER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_BATCH_METER_H_

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "framework/perf/counter_group.h"
#include "framework/runner/thread_groups.h"

namespace pmubench::internal {

// The corrected totals of every thread of one batch of a case, so that a
// derived metric of a ->Threads(n) run is the ratio of the sums over
// threads, not a mean of per-thread ratios. Google Benchmark calls the case
// once per thread per batch and sums each counter over the threads; every
// thread arrives here exactly once per batch, and the last to arrive gets
// the sums. No thread waits (a thread that fails before the loop must not
// block the others in Google Benchmark's start barrier).
class BatchTotals {
 public:
  using Totals = std::array<double, perf::kMaxGroupEvents>;
  // Adds `totals`; returns the sums when this is arrival number `threads`
  // of the batch (and starts the next batch), else nullopt.
  std::optional<Totals> Arrive(int threads, const Totals& totals);

 private:
  std::mutex mu_;
  Totals sums_{};
  int arrived_ = 0;
};

class BatchMeter {
 public:
  // `group` is the calling thread's group for the case's event set; not
  // owned, outlives the meter.
  explicit BatchMeter(ThreadGroup& group) noexcept : group_(group) {}

  void Start() noexcept { ok_ &= group_.group.Snapshot(start_); }
  void Stop() noexcept { ok_ &= group_.group.Snapshot(stop_); }

  // Adds the last Start()..Stop() segment to the batch totals.
  void Accumulate() noexcept;

  // Cold: after the batch. Arrives at `shared` (every thread of the batch,
  // also a failed one) and writes into `gb_state.counters`:
  //   counters[spec]  total minus the calibrated overhead of every segment
  //                   (never below zero), times the alias's sysfs .scale,
  //                   kAvgIterations: per iteration;
  //   derived metrics (IPC, *-miss-ratio): the last thread to arrive writes
  //                   the ratio of the corrected totals summed over the
  //                   batch's threads, the others 0, so Google Benchmark's
  //                   sum over threads is that ratio;
  //   "pmu_running_fraction": time_running / time_enabled over the batch's
  //                   segments, kAvgThreads: the mean over threads.
  // A group that went into error state (a pinned group the PMU could not
  // schedule) turns the run into a failed one whose message says why.
  void Report(benchmark::State& gb_state, BatchTotals& shared);

  // Totals after overhead correction, in event-set order (for tests).
  double CorrectedTotal(int index) const;
  // CorrectedTotal times the event's sysfs .scale: what Report() writes.
  double ReportedTotal(int index) const;
  int segments() const { return segments_; }

 private:
  ThreadGroup& group_;
  perf::GroupSnapshot start_;
  perf::GroupSnapshot stop_;
  std::array<double, perf::kMaxGroupEvents> totals_{};
  uint64_t time_enabled_ = 0;
  uint64_t time_running_ = 0;
  int segments_ = 0;
  bool ok_ = true;
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_BATCH_METER_H_
