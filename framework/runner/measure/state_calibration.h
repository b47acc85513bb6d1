// Calibration of what pmubench::State's own code adds to a batch
// (state_overhead.h): empty batches run through State itself, on the
// thread's own group, so that the instructions between the two snapshots
// are the very ones a case's batch runs, less the case's iterations.
//
// Google Benchmark's calls are left out of these batches: at the start of a
// batch its timer starts before the start snapshot and at the end it stops
// after the stop snapshot, so they are outside the counted window anyway.
// (PauseTiming and ResumeTiming are different: their timer code is inside
// the window. That pair is sampled in a real batch, at its first
// PauseTiming: see State::PauseTiming.)
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_CALIBRATION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_CALIBRATION_H_

#include "absl/status/status.h"
#include "framework/runner/measure/state_overhead.h"
#include "framework/runner/measure/thread_groups.h"

namespace pmubench::internal {

// Rounds of empty batches per size; the minimum of each size is the count
// without noise (as nanobench does).
inline constexpr int kCalibrationRounds = 100;

// Measures empty batches of 1 and 2 iterations driven by `form` on
// `group` and stores, per event, the intercept 2 * count(1) - count(2)
// (never below zero) in group.state_overhead.batch[form]. An intercept and
// not count(0): a KeepRunning loop cannot run zero iterations, and the
// intercept leaves each iteration's own loop instructions (the decrement and
// branch the case's iterations pay too) in the per-iteration count. Fails
// when the group is in error state.
absl::Status CalibrateBatchOverhead(ThreadGroup& group, LoopForm form);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_CALIBRATION_H_
