#include "framework/runner/probe.h"

#include <memory>
#include <utility>
#include <vector>

#include "framework/runner/group_split.h"
#include "framework/runner/thread_groups.h"

namespace pmubench::internal {
namespace {

// The indices of the events of `set` that fail alone with NotFound.
std::vector<int> EventsNotFound(const EventSet& set) {
  std::vector<int> missing;
  for (int i = 0; i < set.size(); ++i) {
    absl::StatusOr<perf::CounterGroup> alone =
        perf::CounterGroup::Open({set.events[i]}, set.options);
    if (!alone.ok() && absl::IsNotFound(alone.status())) missing.push_back(i);
  }
  return missing;
}

SetProbe Failed(absl::Status status) {
  SetProbe probe;
  probe.status = std::move(status);
  return probe;
}

// Opens `set` as one group, checks and calibrates it, and closes it.
SetProbe ProbeWhole(const EventSet& set) {
  SetProbe probe;
  absl::StatusOr<std::unique_ptr<ThreadGroup>> opened = OpenCalibrated(set);
  if (!opened.ok()) {
    probe.status = opened.status();
    if (absl::IsNotFound(probe.status)) probe.not_found = EventsNotFound(set);
    return probe;
  }
  probe.status = (*opened)->group.Health();
  probe.opened = (*opened)->group.events();
  const EventCounts& overhead = (*opened)->overhead();
  probe.overhead.assign(overhead.begin(), overhead.begin() + set.size());
  return probe;
}

// Whether `status`, from opening a pinned set of several events, may say the
// PMU cannot hold them at once: EINVAL at perf_event_open(2) (the kernel
// validates a group against its counters; CounterGroup::Open also refuses
// more than kMaxGroupEvents) or the enabled group in error state.
bool MayNotFit(const EventSet& set, const absl::Status& status) {
  return set.size() > 1 && set.options.pinned &&
         (absl::IsInvalidArgument(status) ||
          absl::IsFailedPrecondition(status));
}

// The split of a set that did not open whole (`whole`: why): groups that
// fit, found by opening candidates on this thread, each then probed. The
// set's error stays when an event does not open even alone (then that
// event's own error) or when every event fits one group after all.
SetProbe ProbeSplit(const EventSet& set, const absl::Status& whole) {
  if (!set.cpus.empty() && !PinThisThread(set.cpus).ok()) return Failed(whole);
  const GroupSplit split = SplitToFit(
      set.size(), set.derived,
      [&set](const std::vector<int>& indices) {
        const EventSet group = GroupOf(set, indices);
        return perf::CounterGroup::Open(group.events, group.options).ok();
      },
      perf::kMaxGroupEvents);
  if (split.unfit.has_value()) {
    absl::StatusOr<perf::CounterGroup> alone =
        perf::CounterGroup::Open({set.events[*split.unfit]}, set.options);
    return Failed(alone.ok() ? whole : alone.status());
  }
  if (split.groups.size() < 2) return Failed(whole);
  SetProbe probe;
  probe.opened.resize(set.size());
  probe.overhead.resize(set.size());
  for (const std::vector<int>& indices : split.groups) {
    const SetProbe part = ProbeWhole(GroupOf(set, indices));
    if (!part.status.ok()) return part;
    for (size_t k = 0; k < indices.size(); ++k) {
      probe.opened[indices[k]] = part.opened[k];
      probe.overhead[indices[k]] = part.overhead[k];
    }
  }
  probe.groups = split.groups;
  probe.underived = split.underived;
  return probe;
}

}  // namespace

SetProbe ProbeSet(const EventSet& set) {
  SetProbe probe = ProbeWhole(set);
  if (!MayNotFit(set, probe.status)) return probe;
  return ProbeSplit(set, probe.status);
}

}  // namespace pmubench::internal
