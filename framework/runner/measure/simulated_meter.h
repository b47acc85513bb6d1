// SimulatedMeter: one batch of a case counted by callgrind, on one thread.
//
// Callgrind counts what it simulates exactly, but a batch also runs code
// that is not the case's (the loop's entry and exit, State's calls, the
// client requests). So under callgrind a batch is one loop of a fixed number
// of steps in four segments: a warm-up of w steps, then n, n and 2n, with a
// callgrind dump at the end of each (State::SegmentBoundary: inline and
// call-free, the same instructions at every boundary). Each measured
// segment (the last two) follows a segment of n steps, so both begin in
// the same state of the simulated branch predictor and caches (after a
// short segment the loop's back edge would be mispredicted once more), and
// they begin and end alike, so
//
//   per step = (C(2n) - C(n) - (p(2n) - p(n)) * pause_pair) / n
//
// is exact: the fixed cost cancels, and each ResumeTiming..PauseTiming pair
// (p counts them) is subtracted at its calibrated cost. The loop runs on
// without a break, so simulated caches and branch predictor see the case as
// a long native batch would (the warm-up fills them; setup, though not
// counted, is simulated too). A step is one iteration of a range-for or
// KeepRunning loop, one call of KeepRunningBatch(k) (k iterations).
//
// Threads: with --separate-threads=yes (pmubench's re-execution passes it)
// each thread's dumps hold its own costs, so every thread of a
// ->Threads(N) batch is counted on its own and Google Benchmark averages
// them. Without it, a multi-threaded case fails with what to pass.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_SIMULATED_METER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_SIMULATED_METER_H_

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/runner/measure/simulation_session.h"
#include "framework/runner/simulate/callgrind.h"
#include "framework/runner/simulate/segment_profile.h"

namespace pmubench::internal {

// The steps of each segment: w, n, n, 2n, with w = n, or more when Google
// Benchmark asks for more than 5n (a case's ->Iterations(m)).
struct SimulatedSegments {
  std::array<int64_t, 4> steps{};
  int64_t total() const { return steps[0] + steps[1] + steps[2] + steps[3]; }
};
SimulatedSegments SegmentsFor(int64_t n, int64_t gb_max_iterations);

class SimulatedMeter {
 public:
  // `gb_max_iterations` is Google Benchmark's request for the batch.
  SimulatedMeter(const SimulationSession& session, int64_t gb_max_iterations);
  SimulatedMeter(const SimulatedMeter&) = delete;
  SimulatedMeter& operator=(const SimulatedMeter&) = delete;

  int64_t total_steps() const { return segments_.total(); }
  int64_t segment_steps(int k) const { return segments_.steps[k]; }
  // The label of this batch's dumps: unique in the process.
  const std::string& label() const { return label_; }

  // Collection on / off for the calling thread (State's loop start and
  // end, ResumeTiming and PauseTiming).
  void Start() { Callgrind::ToggleCollect(); }
  void Stop() { Callgrind::ToggleCollect(); }
  // A ResumeTiming..PauseTiming pair paused in segment `segment`.
  void CountPause(int segment) {
    if (segment >= 0 && segment < 4) ++pauses_[segment];
  }

  // After the batch (the loop has ended): reads the four dumps and writes
  // every event and ratio, per iteration, into `gb_state.counters`
  // (kAvgThreads: Google Benchmark averages the threads). A missing or
  // malformed dump fails the run with the reason. `iterations_per_step` is
  // k for KeepRunningBatch(k), else 1.
  void Report(benchmark::State& gb_state, int64_t iterations_per_step);
  // After Report: the self costs of the 2n-step segment (profiles of the
  // batch, profile_pass.h); empty if it could not be read.
  std::vector<CallgrindDump::SelfCost> TakeSelfCosts() {
    return std::move(self_costs_);
  }
  // After Report: the row's own profile, the self costs of the steps it
  // counts (segment_profile.h); empty if the dumps could not be read.
  SegmentProfile TakeSegmentProfile() { return std::move(segment_profile_); }

  // Instead of Report, for a batch run again (layout_check.h): each event
  // of the session's set per iteration, read from the four dumps (which
  // are removed); nothing is written into Google Benchmark's state.
  absl::StatusOr<std::vector<double>> Values(int threads,
                                             int64_t iterations_per_step);

  // What one empty ResumeTiming..PauseTiming pair counts through State's own
  // code, per event of `set` (the minimum of a few; they are equal).
  static absl::StatusOr<std::vector<double>> CalibratePausePair(
      Callgrind& callgrind, const SimulatedEventSet& set);

 private:
  SimulatedMeter() = default;  // for CalibratePausePair

  // Event `event` of the set per iteration: the 2n-step segment less the
  // n-step one, less the extra pause pairs of the longer.
  double PerIteration(size_t event, const std::vector<CallgrindDump>& dumps,
                      int64_t iterations_per_step) const;

  const SimulationSession* session_ = nullptr;
  SimulatedSegments segments_;
  std::string label_;
  std::array<int, 4> pauses_{};
  std::vector<CallgrindDump::SelfCost> self_costs_;
  SegmentProfile segment_profile_;
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_SIMULATED_METER_H_
