// CaseRunner: one batch of one PMU case on the calling thread (the function
// Google Benchmark calls for a PMU_BENCHMARK case). It finds the case's
// planned event set (session.h), takes the thread's group for it
// (thread_groups.h: opened at the case's first batch on this thread, the
// previous case's group closed), runs the body with a pmubench::State
// around a BatchMeter, and reports the counts. A set split into groups runs
// the body once per group (RunTurns).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_CASE_RUNNER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_CASE_RUNNER_H_

#include <benchmark/benchmark.h>

#include <vector>

#include "framework/runner/plan/case_registry.h"

namespace pmubench::internal {

struct EventSet;
struct SimulationSession;

class CaseRunner {
 public:
  static void RunBatch(benchmark::State& gb_state, const Case& pmu_case);

 private:
  // A set split into groups that take turns (group_split.h): the body runs
  // once per group on the same batch, the first run timed by Google
  // Benchmark as an unsplit set's, the others untimed; every group writes
  // its events into the run's counters, and pmu_running_fraction is the
  // least of the groups'.
  static void RunTurns(benchmark::State& gb_state, const Case& pmu_case,
                       const std::vector<const EventSet*>& turns);
  // --pmubench_multiplex with a split set: every group enabled at once,
  // the kernel rotating them, one run of the body, each group's counts
  // scaled by its running fraction (BatchMeter::set_next).
  static void RunMultiplexed(benchmark::State& gb_state, const Case& pmu_case,
                             const std::vector<const EventSet*>& turns);
  // Counted by perf_event: the planned `set` (nullptr: --counters=none),
  // whole or in turns.
  static void RunNativeBatch(benchmark::State& gb_state, const Case& pmu_case,
                             const EventSet* set);
  // Under callgrind (simulated_meter.h).
  static void RunSimulatedBatch(benchmark::State& gb_state,
                                const Case& pmu_case,
                                const SimulationSession& sim);
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_CASE_RUNNER_H_
