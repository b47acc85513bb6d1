// EventSet: the resolved events one case counts, with the derived metrics
// their names allow, and the pure rules that choose and derive them.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_EVENT_SET_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_EVENT_SET_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"

namespace pmubench::internal {

// What a case counts when neither it nor --counters names events.
inline constexpr char kHardwareDefaultEvents[] =
    "cycles,instructions,branches,branch-misses";
// The fallback on a machine without a hardware PMU (a VM without a vPMU).
inline constexpr char kSoftwareDefaultEvents[] =
    "task-clock,page-faults,context-switches";
// --counters=none turns counting off.
inline constexpr char kNoCounters[] = "none";
// Events one set may name: more than one group holds (perf::kMaxGroupEvents)
// or the PMU has counters for are split into groups that take turns
// (group_split.h), each batch running once per group.
inline constexpr int kMaxSetEvents = 4 * perf::kMaxGroupEvents;
// The JSON field holding time_running / time_enabled of the batch.
inline constexpr char kRunningFractionName[] = "pmu_running_fraction";

// A ratio of two counted events, reported beside them.
struct DerivedMetric {
  std::string name;   // "IPC", "branch-miss-ratio", ...
  int numerator = 0;  // indices into the event set
  int denominator = 0;
};

struct EventSet {
  // Canonical identity: the specs joined by ',' plus the group options;
  // thread caches are keyed by it.
  std::string key;
  std::vector<perf::ResolvedEvent> events;
  std::vector<DerivedMetric> derived;
  perf::GroupOptions options;
  // Hybrid CPUs: the CPUs of the core PMU its events count on; the thread
  // is pinned there before the group opens (sched_setaffinity(2)). Empty:
  // no pinning.
  std::vector<int> cpus;

  int size() const { return static_cast<int>(events.size()); }
  std::string SpecList() const;  // "a,b,c" as the user spelled them
};

// Derived metrics whose inputs are all in `names` (specs as spelled):
//   IPC = instructions / cycles
//   branch-miss-ratio = branch-misses / branches
//   cache-miss-ratio = cache-misses / cache-references
//   <X>-miss-ratio = <X>-misses / <X>s   (L1-dcache-load-misses /
//                                         L1-dcache-loads, dTLB-load-misses /
//                                         dTLB-loads, L1-dcache-prefetch-misses
//                                         / L1-dcache-prefetches, ...)
// A modifier suffix must match on both inputs and is kept on the name
// ("instructions:u" / "cycles:u" give "IPC:u").
std::vector<DerivedMetric> DeriveMetrics(const std::vector<std::string>& names);

// Resolves `specs` (comma separated, as perf stat -e) into an EventSet.
// Errors name the spec and what would be valid (from perf::ResolveEventList).
absl::StatusOr<EventSet> MakeEventSet(std::string_view specs,
                                      const perf::PmuRegistry& pmus,
                                      const perf::GroupOptions& options);

// `set` without the events at the indices `drop` (derived metrics and key
// recomputed): what a case counts when the PMU lacks some of its events.
EventSet WithoutEvents(const EventSet& set, const std::vector<int>& drop);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_EVENT_SET_H_
