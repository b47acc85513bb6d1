#include "framework/runner/probe.h"

#include <memory>
#include <utility>
#include <vector>

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

}  // namespace

SetProbe ProbeSet(const EventSet& set) {
  SetProbe probe;
  absl::StatusOr<std::unique_ptr<ThreadGroup>> opened = OpenCalibrated(set);
  if (!opened.ok()) {
    probe.status = opened.status();
    if (absl::IsNotFound(probe.status)) probe.not_found = EventsNotFound(set);
    return probe;
  }
  probe.status = (*opened)->group.Health();
  probe.opened = (*opened)->group.events();
  probe.overhead = (*opened)->overhead();
  return probe;
}

}  // namespace pmubench::internal
