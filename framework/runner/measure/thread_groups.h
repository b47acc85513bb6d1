// The calling thread's counter group: at most one enabled CounterGroup per
// thread, for the event set of the case the thread is measuring (a split
// set's other turns are open, disabled). Asking for
// another set closes the held group first, so a pinned group never competes
// with the groups of cases that are not running; asking for the same set
// again reuses it (every batch of a case, and consecutive cases that count
// the same events). The holder is thread_local: the group closes when the
// thread exits.
//
// NOTE: Google Benchmark 1.7.1 runs thread 0 of every case on the main thread
// but starts fresh worker threads for each batch of a ->Threads(n) case, so
// worker threads open (and calibrate) their group once per batch.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_THREAD_GROUPS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_THREAD_GROUPS_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/runner/measure/state_overhead.h"
#include "framework/runner/plan/event_set.h"

namespace pmubench::internal {

struct ThreadGroup {
  // Not owned: the set of the latest ThreadGroupFor call (same key), which
  // outlives the batches that use it.
  const EventSet* set = nullptr;
  std::string key;  // set->key when opened; compared without touching set
  perf::CounterGroup group;
  // What State's own code adds to this group's counts, calibrated on it:
  // the range-for batch at open, the other loop forms and the pause pair
  // when a batch first uses them.
  StateOverhead state_overhead;

  // Per event: the counts of an empty range-for batch (calibrated at open),
  // the overhead the run's description shows.
  const EventCounts& overhead() const {
    return *state_overhead.batch[static_cast<int>(LoopForm::kRangeFor)];
  }
};

// Opens `set` on the calling thread (pinning the thread to set.cpus first,
// when given) and calibrates its range-for batch overhead. Errors come from
// CounterGroup::Open and carry its remedy. Every call counts towards
// TimesOpened(set.key).
absl::StatusOr<std::unique_ptr<ThreadGroup>> OpenCalibrated(
    const EventSet& set);

// The calling thread's group for `set`: the held one when it counts the same
// set, else the held group is closed and `set` opened in its place.
absl::StatusOr<ThreadGroup*> ThreadGroupFor(const EventSet& set);

// The calling thread's groups for a set split into turns (group_split.h):
// one group per turn, all open and each disabled (it holds no counter) until
// the caller enables it for its turn and disables it after. Held in place of
// the single group, reused while the turns are the same.
absl::StatusOr<std::vector<ThreadGroup*>> ThreadTurnGroupsFor(
    const std::vector<const EventSet*>& turns);

// Closes the calling thread's groups, if any.
void CloseThreadGroup();

// Pins the calling thread to `cpus` (sched_setaffinity(2) with pid 0).
absl::Status PinThisThread(const std::vector<int>& cpus);

// For tests: groups the calling thread holds open (0, 1, or a split set's
// turns), and how often
// a set with `key` has been opened in this process (probes included).
int OpenThreadGroupCount();
int TimesOpened(const std::string& key);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_THREAD_GROUPS_H_
