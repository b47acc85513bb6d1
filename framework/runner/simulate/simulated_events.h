// The events callgrind simulates, under the names perf users know, and how
// each is summed from callgrind's own event columns (the Valgrind manual,
// "Cachegrind: Running Cachegrind" for Ir/Dr/Dw/I1mr/D1mr/D1mw/ILmr/DLmr/
// DLmw, "Branch simulation" for Bc/Bcm/Bi/Bim).
//
// A simulated event's JSON field is "callgrind/NAME/" (a perf PMU/event
// spelling: scripts classify it by NAME, and the prefix says the count is
// callgrind's, not the hardware's): "callgrind/instructions/",
// "callgrind/L1-dcache-load-misses/", ...
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SIMULATED_EVENTS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SIMULATED_EVENTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/runner/simulate/callgrind.h"

namespace pmubench::internal {

struct SimulatedEvent {
  std::string name;                  // "L1-dcache-load-misses"
  std::vector<std::string> columns;  // callgrind events summed: {"D1mr"}
  std::string field() const { return "callgrind/" + name + "/"; }
};

// A ratio of two simulated events ("callgrind/branch-miss-ratio/").
struct SimulatedRatio {
  std::string name;   // "branch-miss-ratio"
  int numerator = 0;  // indices into the event list
  int denominator = 0;
  std::string field() const { return "callgrind/" + name + "/"; }
};

struct SimulatedEventSet {
  std::vector<SimulatedEvent> events;
  std::vector<SimulatedRatio> ratios;
};

// Every event a dump with these columns can give, in a fixed order:
// instructions (Ir); with --cache-sim=yes the L1 and last-level loads,
// stores and misses and cache-misses (every last-level miss); with
// --branch-sim=yes branches and branch-misses (conditional plus indirect).
std::vector<SimulatedEvent> AvailableSimulatedEvents(
    const std::vector<std::string>& columns);

// The events a run counts: all of `available` for "" (the default), none
// for "none", else the comma-separated names in `counters` (perf names,
// "instructions" or "callgrind/instructions/"), each of which must be
// available: an error names the one that is not and lists what is.
absl::StatusOr<SimulatedEventSet> SelectSimulatedEvents(
    std::string_view counters, const std::vector<SimulatedEvent>& available);

// The value of `event` in a dump (the sum of its columns).
uint64_t SimulatedValue(const SimulatedEvent& event, const CallgrindDump& dump);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SIMULATED_EVENTS_H_
