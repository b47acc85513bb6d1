#include "framework/runner/thread_groups.h"

#include <sched.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/runner/state_calibration.h"

namespace pmubench::internal {
namespace {

// Destroyed at thread exit, which closes the thread's group.
std::unique_ptr<ThreadGroup>& HeldGroup() {
  thread_local std::unique_ptr<ThreadGroup> held;
  return held;
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
        errno, absl::StrCat("sched_setaffinity to CPUs ",
                            absl::StrJoin(cpus, ","),
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
    return absl::Status(calibrated.code(),
                        absl::StrCat("events ", set.SpecList(), ": ",
                                     calibrated.message()));
  }
  return opened;
}

absl::StatusOr<ThreadGroup*> ThreadGroupFor(const EventSet& set) {
  std::unique_ptr<ThreadGroup>& held = HeldGroup();
  if (held != nullptr && held->key == set.key) {
    // The caller's set counts the same events; an earlier caller's set may
    // be gone (a test's local EventSet), so point at this one.
    held->set = &set;
    return held.get();
  }
  held.reset();  // close the other set's group before opening this one
  absl::StatusOr<std::unique_ptr<ThreadGroup>> opened = OpenCalibrated(set);
  if (!opened.ok()) return opened.status();
  held = *std::move(opened);
  return held.get();
}

void CloseThreadGroup() { HeldGroup().reset(); }

int OpenThreadGroupCount() { return HeldGroup() != nullptr ? 1 : 0; }

int TimesOpened(const std::string& key) {
  OpenLog& log = Opens();
  std::lock_guard<std::mutex> lock(log.mu);
  auto it = log.times.find(key);
  return it == log.times.end() ? 0 : it->second;
}

}  // namespace pmubench::internal
