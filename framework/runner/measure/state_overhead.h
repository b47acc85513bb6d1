// What pmubench::State's own code adds to a batch's counts, per event, so
// that the runner can subtract it and leave only the case's instructions.
//
// Every counted segment of a batch runs some of State's code between its two
// snapshots: the tail of the start snapshot and of the call that took it,
// the loop's entry and exit (which differ between the range-for loop,
// KeepRunning and KeepRunningBatch), the head of the finishing call and of
// the stop snapshot; and, when the case pauses, Google Benchmark's own timer
// code (PauseTiming stops the timer before the stop snapshot, ResumeTiming
// starts it after the start snapshot, so no snapshot is timed). A batch of
// form f with p pause/resume pairs therefore carries
//
//   batch[f] + p * pause_pair
//
// counts that are not the case's. Both terms are measured on the thread's own
// group through State's own code (thread_groups.h, state_calibration.h).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_OVERHEAD_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_OVERHEAD_H_

#include <array>
#include <cstdint>
#include <optional>

#include "framework/perf/counting/counter_group.h"
#include "framework/runner/measure/loop_form.h"

namespace pmubench::internal {

using EventCounts = std::array<double, perf::kMaxGroupEvents>;

struct StateOverhead {
  // Per loop form: the intercept a of count(n) = a + n * b over batches of
  // n empty iterations, i.e. what a batch costs beyond its iterations.
  // Empty until that form is first reported on this group.
  std::array<std::optional<EventCounts>, kLoopForms> batch;
  // One ResumeTiming..PauseTiming pair with nothing between, Google
  // Benchmark's timer code included: the minimum over the samples so far.
  EventCounts pause_pair{};
  int pause_pair_samples = 0;
};

// Samples of the pause pair taken on a group (at its first PauseTiming).
inline constexpr int kPausePairSamples = 5;

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_OVERHEAD_H_
