// BatchMeter: the counter side of one batch on one thread. It takes the
// start/stop snapshots around each counted segment of the batch (one
// segment, or more when the case uses PauseTiming), sums the deltas, and at
// the end subtracts what State's own code added (state_overhead.h) and
// writes per-iteration counts, derived metrics and the running fraction into
// the batch's benchmark::State counters.
//
// Start() and Stop() are the hot path: one CounterGroup::Snapshot each, no
// allocation, no status. Accumulate() runs after the snapshot, outside the
// counted window.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_BATCH_METER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_BATCH_METER_H_

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "framework/perf/counting/counter_group.h"
#include "framework/runner/measure/state_overhead.h"
#include "framework/runner/measure/thread_groups.h"

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

  // --pmubench_multiplex: `next` measures the same segments on another
  // group enabled at the same time (the kernel rotates them); every call
  // below but Report() is passed on. Its snapshots fall inside this
  // meter's segments uncalibrated: multiplexed counts are estimates.
  void set_next(BatchMeter* next) noexcept { next_ = next; }

  // Before Start(): which loop drives the batch (its fixed cost differs).
  void set_form(LoopForm form) noexcept {
    form_ = form;
    if (next_ != nullptr) next_->set_form(form);
  }
  void Start() noexcept {
    ok_ &= group_.group.Snapshot(start_);
    if (next_ != nullptr) [[unlikely]]
      next_->Start();
  }
  void Stop() noexcept {
    if (next_ != nullptr) [[unlikely]]
      next_->Stop();
    ok_ &= group_.group.Snapshot(stop_);
  }

  // How the segment that Stop() just ended was ended.
  enum class SegmentEnd { kFinish, kPause };
  // Adds the last Start()..Stop() segment to the batch totals, or, between
  // BeginPausePairSample() and here, to the group's pause-pair calibration
  // instead (StateOverhead::pause_pair).
  void Accumulate(SegmentEnd end) noexcept;

  // The pause pair is calibrated at the first PauseTiming calls on a group:
  // true while it has fewer than kPausePairSamples samples and no sample is
  // being taken.
  bool WantsPausePairSample() const noexcept {
    return !sampling_pause_pair_ &&
           group_.state_overhead.pause_pair_samples < kPausePairSamples;
  }
  // The next Start()..Stop() segment is an empty ResumeTiming..PauseTiming
  // pair: a calibration sample, not part of the batch.
  void BeginPausePairSample() noexcept {
    sampling_pause_pair_ = true;
    if (next_ != nullptr) next_->BeginPausePairSample();
  }

  // Cold: after the batch (the timer has stopped). Calibrates the batch's
  // loop form on this group if it is the first of its form here, arrives at
  // `shared` (every thread of the batch, also a failed one) and writes into
  // `gb_state.counters`:
  //   counters[spec]  total minus State's own overhead (the form's batch
  //                   cost plus one pause pair per PauseTiming; never below
  //                   zero), times the alias's sysfs .scale,
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

  // Totals as counted, before any correction, in event-set order.
  double RawTotal(int index) const { return totals_[index]; }
  // Totals after overhead correction, in event-set order (for tests). Needs
  // the form's batch overhead calibrated (Report() does it).
  double CorrectedTotal(int index) const;
  // CorrectedTotal times the event's sysfs .scale: what Report() writes.
  double ReportedTotal(int index) const;
  int segments() const { return segments_; }
  int pauses() const { return pauses_; }
  LoopForm form() const { return form_; }
  // False once a snapshot failed (the group went into error state).
  bool ok() const { return ok_; }

 private:
  ThreadGroup& group_;
  BatchMeter* next_ = nullptr;
  perf::GroupSnapshot start_;
  perf::GroupSnapshot stop_;
  std::array<double, perf::kMaxGroupEvents> totals_{};
  uint64_t time_enabled_ = 0;
  uint64_t time_running_ = 0;
  int segments_ = 0;
  int pauses_ = 0;
  LoopForm form_ = LoopForm::kRangeFor;
  bool sampling_pause_pair_ = false;
  bool ok_ = true;
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_BATCH_METER_H_
