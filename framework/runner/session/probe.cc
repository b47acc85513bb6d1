#include "framework/runner/session/probe.h"

#include <memory>
#include <utility>
#include <vector>

#include "framework/runner/measure/thread_groups.h"
#include "framework/runner/plan/group_split.h"

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

// Whether the events of `group` fit one group on this PMU. Asked pinned
// whatever the set's options: a non-pinned group the PMU cannot hold opens
// and reads fine, it just never runs, while a pinned one goes into error
// state at the enable (perf_event_open(2), "pinned").
bool FitsPinned(const EventSet& group) {
  perf::GroupOptions pinned = group.options;
  pinned.pinned = true;
  return perf::CounterGroup::Open(group.events, pinned).ok();
}

// Whether `whole`, the probe of `set` as one group, leaves room for a split
// that fits: the kernel refused the group (EINVAL at perf_event_open(2) when
// it validates a group against its counters; CounterGroup::Open also refuses
// more than kMaxGroupEvents), the pinned group went into error state, or a
// non-pinned group opened but would not fit pinned.
bool MayNotFit(const EventSet& set, const SetProbe& whole) {
  if (set.size() < 2) return false;
  if (whole.status.ok()) return !set.options.pinned && !FitsPinned(set);
  return absl::IsInvalidArgument(whole.status) ||
         absl::IsFailedPrecondition(whole.status);
}

// The split of a set that does not fit one group (`whole`: its probe as
// one): groups that fit, found by opening candidates on this thread, each
// then probed. `whole` stays when every event fits one group after all, and
// an event that does not open even alone gives that event's own error.
SetProbe ProbeSplit(const EventSet& set, const SetProbe& whole) {
  if (!set.cpus.empty() && !PinThisThread(set.cpus).ok()) return whole;
  const GroupSplit split = SplitToFit(
      set.size(), set.derived,
      [&set](const std::vector<int>& indices) {
        return FitsPinned(GroupOf(set, indices));
      },
      perf::kMaxGroupEvents);
  if (split.unfit.has_value()) {
    absl::StatusOr<perf::CounterGroup> alone =
        perf::CounterGroup::Open({set.events[*split.unfit]}, set.options);
    return alone.ok() ? whole : Failed(alone.status());
  }
  if (split.groups.size() < 2) return whole;
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
  const SetProbe whole = ProbeWhole(set);
  if (!MayNotFit(set, whole)) return whole;
  return ProbeSplit(set, whole);
}

}  // namespace pmubench::internal
