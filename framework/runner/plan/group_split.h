// Splitting an event set that does not fit one pinned group into groups that
// do, which then take turns: each batch runs the case's body once per group
// (case_runner.h), so every event is counted exactly, none multiplexed.
//
//   GroupSplit split = SplitToFit(set.size(), set.derived, fits);
//   if (split.unfit.has_value()) ... event *split.unfit fits no group ...
//   for (const std::vector<int>& group : split.groups) ... open it ...
//
// Pure: whether a group fits is the caller's question `fits`, answered on the
// machine by opening the group pinned (probe.cc: perf_event_open(2) refuses
// a group its PMU cannot hold with EINVAL, or the enabled group lands in
// error state) or by a model of a PMU in tests. How many events fit is
// learned this way, not assumed: fixed counters (x86 cycles, instructions,
// ref-cycles; the arm64 cycle counter), counters held by the NMI watchdog or
// by other pinned groups, and hybrid PMUs all show in the answer.
//
// The rules:
//   - the inputs of a derived metric (IPC: instructions and cycles; each
//     X-miss-ratio: X-misses and X) stay in one group, so the ratio is of
//     counts of the same batches; when the two do not fit together, they
//     are placed apart and the metric is named in `underived`;
//   - first fit: each event (or pair) goes into the first group it fits
//     in, in the set's order, so events that take no general-purpose
//     counter fill the first group, and the fewest groups usually result;
//   - at most `max_group_size` events per group (perf::kMaxGroupEvents).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_GROUP_SPLIT_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_GROUP_SPLIT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "framework/runner/plan/event_set.h"

namespace pmubench::internal {

struct GroupSplit {
  // Indices into the set's events, ascending within a group; groups in the
  // order they were started. Every event is in exactly one group.
  std::vector<std::vector<int>> groups;
  // Derived metrics whose inputs could not share a group: not reported.
  std::vector<std::string> underived;
  // An event that does not fit even alone: the set cannot be split (the
  // caller reports that event's own error). `groups` is empty then.
  std::optional<int> unfit;
};

// Whether the events at these indices fit one pinned group.
using FitsTest = absl::FunctionRef<bool(const std::vector<int>&)>;

GroupSplit SplitToFit(int size, const std::vector<DerivedMetric>& derived,
                      FitsTest fits, int max_group_size);

// The events of `set` at `indices`, with the derived metrics they allow:
// one group of a split set.
EventSet GroupOf(const EventSet& set, const std::vector<int>& indices);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_GROUP_SPLIT_H_
