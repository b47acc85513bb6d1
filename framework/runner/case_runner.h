// CaseRunner: one batch of one PMU case on the calling thread (the function
// Google Benchmark calls for a PMU_BENCHMARK case). It finds the case's
// planned event set (session.h), takes the thread's group for it
// (thread_groups.h: opened at the case's first batch on this thread, the
// previous case's group closed), runs the body with a pmubench::State
// around a BatchMeter, and reports the counts.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CASE_RUNNER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CASE_RUNNER_H_

#include <benchmark/benchmark.h>

#include "framework/runner/case_registry.h"

namespace pmubench::internal {

struct SimulationSession;

class CaseRunner {
 public:
  static void RunBatch(benchmark::State& gb_state, const Case& pmu_case);

 private:
  // Under callgrind (simulated_meter.h).
  static void RunSimulatedBatch(benchmark::State& gb_state,
                                const Case& pmu_case,
                                const SimulationSession& sim);
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CASE_RUNNER_H_
