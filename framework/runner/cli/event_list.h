// --pmubench_list_events: the events this machine can count, each one tried
// (perf_event_open(2) on the calling thread, then closed), grouped as
// `perf list` groups them, with the ones that cannot be counted listed
// apart with the errno the kernel gave.
//
//   absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
//   std::cout << FormatEventList(ProbeEvents(ListCandidates(*pmus), *pmus));
//
// Candidates and formatting are pure (tests feed synthetic probes); only
// ProbeEvents opens events.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_EVENT_LIST_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_EVENT_LIST_H_

#include <string>
#include <vector>

#include "framework/perf/events/pmu.h"

namespace pmubench::internal {

// The groups of `perf list`, in its order.
enum class EventGroup { kHardware, kHardwareCache, kSoftware, kPmu };

struct EventCandidate {
  std::string name;  // as --counters spells it: "cycles", "msr/tsc/"
  EventGroup group = EventGroup::kHardware;
  std::string pmu;  // kPmu: the sysfs PMU ("msr", "cpu", "power")
};

struct ProbedEvent {
  EventCandidate candidate;
  bool counted = false;  // perf_event_open succeeded
  // When not counted: the errno short name ("ENOENT") or, when the spec did
  // not resolve, "unresolved: <why>".
  std::string reason;
};

// Every generic hardware, hardware cache and software event pmubench
// resolves, and every sysfs alias of `pmus` as pmu/alias/; without the
// software events that count nothing (dummy: a placeholder for sideband
// records; bpf-output: a channel for BPF programs).
std::vector<EventCandidate> ListCandidates(const perf::PmuRegistry& pmus);

// Resolves and opens each candidate alone, on this thread, as a counting
// group leader with pmubench's defaults (user space only, disabled), then
// closes it.
std::vector<ProbedEvent> ProbeEvents(
    const std::vector<EventCandidate>& candidates,
    const perf::PmuRegistry& pmus);

// The listing: one section per group that has countable events, PMU events
// under their PMU, names in candidate order; then "Cannot be counted on this
// machine" with each refused name and its reason, grouped by reason; then a
// one-line total.
std::string FormatEventList(const std::vector<ProbedEvent>& probed);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_EVENT_LIST_H_
