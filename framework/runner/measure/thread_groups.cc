#include "framework/runner/measure/thread_groups.h"

#include <sched.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/runner/measure/state_calibration.h"

namespace pmubench::internal {
namespace {

// The thread's groups: one, or one per turn of a split set; `key` names
// what they count. Destroyed at thread exit, which closes them.
struct Held {
  std::string key;
  std::vector<std::unique_ptr<ThreadGroup>> groups;
};

Held& HeldGroups() {
  thread_local Held held;
  return held;
}

std::string TurnsKey(const std::vector<const EventSet*>& turns) {
  return absl::StrJoin(turns, "||", [](std::string* out, const EventSet* set) {
    out->append(set->key);
  });
}

struct OpenLog {
  std::mutex mu;
  std::map<std::string, int> times;
};

OpenLog& Opens() {
  static auto* log = new OpenLog();
  return *log;
}

}  // namespace

absl::Status PinThisThread(const std::vector<int>& cpus) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &mask);
  }
  if (sched_setaffinity(0, sizeof(mask), &mask) != 0) {
    return absl::ErrnoToStatus(
        errno,
        absl::StrCat("sched_setaffinity to CPUs ", absl::StrJoin(cpus, ","),
                     " (the core PMU's CPUs of this hybrid machine)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ThreadGroup>> OpenCalibrated(
    const EventSet& set) {
  {
    OpenLog& log = Opens();
    std::lock_guard<std::mutex> lock(log.mu);
    ++log.times[set.key];
  }
  if (!set.cpus.empty()) {
    if (absl::Status pinned = PinThisThread(set.cpus); !pinned.ok()) {
      return pinned;
    }
  }
  absl::StatusOr<perf::CounterGroup> group =
      perf::CounterGroup::Open(set.events, set.options);
  if (!group.ok()) return group.status();
  auto opened = std::make_unique<ThreadGroup>(
      ThreadGroup{&set, set.key, std::move(*group), {}});
  if (absl::Status calibrated =
          CalibrateBatchOverhead(*opened, LoopForm::kRangeFor);
      !calibrated.ok()) {
    return absl::Status(
        calibrated.code(),
        absl::StrCat("events ", set.SpecList(), ": ", calibrated.message()));
  }
  return opened;
}

absl::StatusOr<ThreadGroup*> ThreadGroupFor(const EventSet& set) {
  Held& held = HeldGroups();
  if (held.groups.size() == 1 && held.key == set.key) {
    // The caller's set counts the same events; an earlier caller's set may
    // be gone (a test's local EventSet), so point at this one.
    held.groups[0]->set = &set;
    return held.groups[0].get();
  }
  CloseThreadGroup();  // the other set's groups close before this one opens
  absl::StatusOr<std::unique_ptr<ThreadGroup>> opened = OpenCalibrated(set);
  if (!opened.ok()) return opened.status();
  held.key = set.key;
  held.groups.push_back(*std::move(opened));
  return held.groups[0].get();
}

absl::StatusOr<std::vector<ThreadGroup*>> ThreadTurnGroupsFor(
    const std::vector<const EventSet*>& turns) {
  Held& held = HeldGroups();
  const std::string key = TurnsKey(turns);
  if (held.key != key || held.groups.size() != turns.size()) {
    CloseThreadGroup();
    for (const EventSet* turn : turns) {
      absl::StatusOr<std::unique_ptr<ThreadGroup>> opened =
          OpenCalibrated(*turn);
      absl::Status off =
          opened.ok() ? (*opened)->group.Disable() : opened.status();
      if (!off.ok()) {
        CloseThreadGroup();
        return off;
      }
      held.groups.push_back(*std::move(opened));
    }
    held.key = key;
  }
  std::vector<ThreadGroup*> groups;
  for (size_t t = 0; t < turns.size(); ++t) {
    held.groups[t]->set = turns[t];
    groups.push_back(held.groups[t].get());
  }
  return groups;
}

void CloseThreadGroup() {
  Held& held = HeldGroups();
  held.groups.clear();
  held.key.clear();
}

int OpenThreadGroupCount() {
  return static_cast<int>(HeldGroups().groups.size());
}

int TimesOpened(const std::string& key) {
  OpenLog& log = Opens();
  std::lock_guard<std::mutex> lock(log.mu);
  auto it = log.times.find(key);
  return it == log.times.end() ? 0 : it->second;
}

}  // namespace pmubench::internal
