// The run's callgrind backend, set up once before any benchmark runs when
// the process runs under callgrind (started by --pmubench_simulate, or by
// the user: valgrind --tool=callgrind --collect-atstart=no BINARY).
//
// Setting up reads one empty dump, which tells the valgrind version, the
// events callgrind collects and the cache geometry it simulates, and checks
// that collection is off outside counted regions (it turns it off if the
// user started callgrind collecting); then it calibrates what one
// ResumeTiming..PauseTiming pair adds (simulated_meter.h).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_SIMULATION_SESSION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_SIMULATION_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/runner/cli/simulation_options.h"
#include "framework/runner/simulate/callgrind.h"
#include "framework/runner/simulate/simulated_events.h"

namespace pmubench::internal {

struct SimulationSession {
  std::unique_ptr<Callgrind> callgrind;
  SimulatedEventSet set;
  std::string valgrind;  // "valgrind-3.19.0"
  std::string geometry;  // "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"
                         // as simulated, or "none"
  // Callgrind simulates caches or branch prediction (--cache-sim=yes or
  // --branch-sim=yes): each batch starts from their fixed state.
  bool simulates_misses = false;
  // Steps of the smaller measured segment (the batch: n, n, 2n).
  int64_t iterations = kDefaultSimulatedIterations;
  // Per event of `set`: what one empty ResumeTiming..PauseTiming pair
  // counts through State's own code.
  std::vector<double> pause_pair;
  // --pmubench_layout_check (layout_check.h).
  bool layout_check = false;
};

// Sets up the backend: `counters` as --counters (simulated event names,
// "" for all, "none"), `requested` the --pmubench_simulate options (nullopt
// when the user started callgrind without the flag). Errors: the dump
// cannot be read, --pmubench_simulate=cache without cache simulation in the
// running callgrind, an event callgrind does not simulate.
absl::StatusOr<const SimulationSession*> StartSimulation(
    std::string_view counters,
    const std::optional<SimulationOptions>& requested);

// The backend StartSimulation set up, or null (the PMU counts).
const SimulationSession* ActiveSimulation();

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_SIMULATION_SESSION_H_
