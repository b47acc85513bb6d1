// The run's counter configuration, decided and checked before any benchmark
// runs: which events each registered PMU case counts, and what the run
// reports about it (the pmubench_* JSON context keys, the console header,
// the notices).
//
//   absl::StatusOr<pmubench::SessionInfo> info =
//       pmubench::Prepare({.counters = "task-clock,page-faults"});
//   if (!info.ok()) { print info.status().message(); exit 2; }
//
// Prepare runs the three steps of a run's setup:
//   plan      (plan.h)      which set each case counts: pure;
//   probe     (probe.h)     each set that will run (its cases match
//                           --benchmark_filter) is opened once on this
//                           thread, checked, calibrated and closed, one set
//                           at a time; the plan is revised from what the
//                           machine refused;
//   describe  (describe.h)  typed facts, the context pairs and header.
// No group stays open: each thread opens the group of the case it runs when
// the case's first batch starts, and closes it when it needs another set
// (thread_groups.h), so at most one group per thread is ever enabled.
//
// Errors (exit 2 in pmubench_main): a spec that is unknown or malformed, an
// explicit --counters list that the machine cannot count or this user may
// not open, a set that does not fit the PMU. Fallbacks (a notice each, the
// run goes on): no hardware PMU (software default events), events the PMU
// lacks (dropped from the default set or a case's own list), sets this user
// may not open (those cases run without counters).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SESSION_SESSION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SESSION_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/runner/output/describe.h"  // SessionInfo
#include "framework/runner/plan/event_set.h"
#include "framework/runner/plan/plan.h"

namespace pmubench {

// Decides and checks what every registered PMU case counts. Call it on the
// main thread before benchmark::RunSpecifiedBenchmarks (after
// benchmark::Initialize, which sets --benchmark_filter); calling it again
// re-decides (tests do this). Thread-safe against itself.
absl::StatusOr<SessionInfo> Prepare(const RunOptions& options);

namespace internal {

// The set case `case_index` counts (null: counting off for it), preparing
// with default options first unless Prepare already ran (a binary that calls
// RunSpecifiedBenchmarks without pmubench_main).
absl::StatusOr<const EventSet*> PlannedSetFor(int case_index);

// The groups of that set when it was split because it does not fit one
// pinned group (group_split.h): they take turns on each batch. Null when the
// set counts as one group. Call after PlannedSetFor.
const std::vector<const EventSet*>* PlannedTurnsFor(int case_index);

}  // namespace internal
}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SESSION_SESSION_H_
