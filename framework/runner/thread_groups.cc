#include "framework/runner/thread_groups.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pmubench::internal {
namespace {

using GroupCache =
    absl::flat_hash_map<std::string, std::unique_ptr<ThreadGroup>>;

// Destroyed at thread exit, which closes the thread's groups.
GroupCache& ThisThreadGroups() {
  thread_local GroupCache cache;
  return cache;
}

}  // namespace

absl::StatusOr<std::array<double, perf::kMaxGroupEvents>> CalibrateOverhead(
    perf::CounterGroup& group, int rounds) {
  std::array<double, perf::kMaxGroupEvents> minimum;
  minimum.fill(std::numeric_limits<double>::infinity());
  const int size = group.size();
  perf::GroupSnapshot start;
  perf::GroupSnapshot stop;
  for (int round = 0; round < rounds; ++round) {
    if (!group.Snapshot(start) || !group.Snapshot(stop)) {
      absl::Status health = group.Health();
      return health.ok() ? absl::InternalError(
                               "counter group read returned no data while "
                               "calibrating its overhead")
                         : health;
    }
    const perf::GroupDelta delta = perf::Delta(start, stop, size);
    for (int i = 0; i < size; ++i) {
      minimum[i] = std::min(minimum[i], delta.counts[i]);
    }
  }
  for (int i = 0; i < perf::kMaxGroupEvents; ++i) {
    if (i >= size || rounds <= 0) minimum[i] = 0;
  }
  return minimum;
}

absl::StatusOr<ThreadGroup*> ThreadGroupFor(const EventSet& set) {
  GroupCache& cache = ThisThreadGroups();
  auto it = cache.find(set.key);
  if (it != cache.end()) return it->second.get();

  absl::StatusOr<perf::CounterGroup> group =
      perf::CounterGroup::Open(set.events, set.options);
  if (!group.ok()) return group.status();
  auto opened =
      std::make_unique<ThreadGroup>(ThreadGroup{&set, std::move(*group), {}});
  absl::StatusOr<std::array<double, perf::kMaxGroupEvents>> overhead =
      CalibrateOverhead(opened->group, kCalibrationRounds);
  if (!overhead.ok()) {
    return absl::Status(overhead.status().code(),
                        absl::StrCat("events ", set.SpecList(), ": ",
                                     overhead.status().message()));
  }
  opened->overhead = *overhead;
  ThreadGroup* result = opened.get();
  cache.emplace(set.key, std::move(opened));
  return result;
}

int OpenThreadGroupCount() {
  return static_cast<int>(ThisThreadGroups().size());
}

}  // namespace pmubench::internal
