// The calling thread's counter groups: one open CounterGroup per event set,
// opened (and its overhead calibrated) the first time the thread measures
// that set, reused by every later batch and benchmark on the thread, and
// closed when the thread exits (the cache is thread_local).
//
// NOTE: Google Benchmark 1.7.1 runs thread 0 of every case on the main thread
// but starts fresh worker threads for each batch of a ->Threads(n) case, so
// worker threads open (and calibrate) their group once per batch.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_THREAD_GROUPS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_THREAD_GROUPS_H_

#include <array>

#include "absl/status/statusor.h"
#include "framework/perf/counter_group.h"
#include "framework/runner/event_set.h"

namespace pmubench::internal {

// Empty start/stop pairs measured per thread and event set; the minimum is
// the overhead (as nanobench does: the minimum is the cost without noise).
inline constexpr int kCalibrationRounds = 200;

struct ThreadGroup {
  const EventSet* set = nullptr;  // not owned; lives as long as the process
  perf::CounterGroup group;
  // Per event: the minimum count of an empty start/stop pair.
  std::array<double, perf::kMaxGroupEvents> overhead{};
};

// The calling thread's group for `set`: opens and calibrates it on first use.
// Errors come from CounterGroup::Open and carry its remedy.
absl::StatusOr<ThreadGroup*> ThreadGroupFor(const EventSet& set);

// Measures `rounds` empty Snapshot/Snapshot pairs and returns the minimum
// delta of each event (scaled as perf::Delta scales). Fails when the group
// is in error state.
absl::StatusOr<std::array<double, perf::kMaxGroupEvents>> CalibrateOverhead(
    perf::CounterGroup& group, int rounds);

// Number of groups the calling thread holds open (for tests).
int OpenThreadGroupCount();

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_THREAD_GROUPS_H_
