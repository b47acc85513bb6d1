// Registration of PMU_BENCHMARK cases with Google Benchmark.
//
// Each macro records the case (case_registry.h: its name, source file and
// own event list) and registers a Google Benchmark case whose body runs one
// batch through CaseRunner (case_runner.h). The macros return
// benchmark::internal::Benchmark*, so builder calls chain:
// PMU_BENCHMARK(BM_X)->Arg(8)->Threads(2).
//
// Which events a case counts is planned by pmubench::Prepare (session.h,
// plan.h), which pmubench_main calls before any benchmark runs:
//   --counters=SPEC,...   every case counts these (an error if they cannot
//                         be opened: exit 2 before any benchmark runs);
//   --counters=none       counting is off;
//   otherwise             the case's own list (PMU_BENCHMARK_WITH_COUNTERS),
//                         else the default set (event_set.h).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_API_REGISTRATION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_API_REGISTRATION_H_

#include <benchmark/benchmark.h>

#include <memory>

#include "framework/runner/plan/case_registry.h"

namespace pmubench {

class State;

namespace internal {

// Records `body` under `name` and registers it with Google Benchmark.
// `counters` is a comma-separated event list, or "" for the default set;
// `file` is the registering source file (__FILE__).
benchmark::internal::Benchmark* RegisterCase(const char* name, CaseBody body,
                                             const char* counters,
                                             const char* file);

template <class FixtureCase>
benchmark::internal::Benchmark* RegisterFixture(const char* name,
                                                const char* counters,
                                                const char* file) {
  // One fixture object per registration, shared by the case's threads, as
  // Google Benchmark does for BENCHMARK_F.
  auto fixture = std::make_shared<FixtureCase>();
  return RegisterCase(
      name, [fixture](State& state) { fixture->Run(state); }, counters, file);
}

}  // namespace internal
}  // namespace pmubench

// The PMU_BENCHMARK* macros that call RegisterCase and RegisterFixture are
// in registration_macros.h.

#endif  // PMUBENCH_FRAMEWORK_RUNNER_API_REGISTRATION_H_
