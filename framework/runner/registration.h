// Registration of PMU_BENCHMARK cases with Google Benchmark.
//
// Each macro registers a Google Benchmark case whose body wraps the user's
// function: it finds the calling thread's counter group for the case's event
// set, runs the function with a pmubench::State, and writes the counts into
// the run's counters. The macros return benchmark::internal::Benchmark*, so
// builder calls chain: PMU_BENCHMARK(BM_X)->Arg(8)->Threads(2).
//
// Which events a case counts is decided by pmubench::Prepare (session.h),
// which pmubench_main calls before any benchmark runs:
//   --counters=SPEC,...   every case counts these (an error if they cannot
//                         be opened: exit 2 before any benchmark runs);
//   --counters=none       counting is off;
//   otherwise             the case's own list (PMU_BENCHMARK_WITH_COUNTERS),
//                         else the default set (event_set.h).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_REGISTRATION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_REGISTRATION_H_

#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pmubench {

class State;

namespace internal {

struct EventSet;

using CaseBody = std::function<void(State&)>;

// One registered PMU case.
struct Case {
  std::string name;
  // __FILE__ of the macro that registered the case.
  std::string file;
  CaseBody body;
  // As written in PMU_BENCHMARK_WITH_COUNTERS; empty for the default set.
  std::string requested_counters;
  // Decided by Prepare: what this case counts; null when counting is off.
  const EventSet* events = nullptr;
  // Set by Prepare when the case's own events needed a hardware PMU the
  // machine lacks and it counts the software fallback set instead.
  bool fell_back = false;
};

// Every PMU case registered so far, in registration order. The pointers stay
// valid for the life of the process.
std::vector<Case*> RegisteredCases();

// Registers `body` under `name`. `counters` is a comma-separated event list,
// or "" for the default set; `file` is the registering source file
// (__FILE__).
benchmark::internal::Benchmark* RegisterCase(const char* name, CaseBody body,
                                             const char* counters,
                                             const char* file);

// Runs one batch of `pmu_case` on the calling thread (the function Google
// Benchmark calls).
class CaseRunner {
 public:
  static void RunBatch(benchmark::State& gb_state, const Case& pmu_case);
};

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

#endif  // PMUBENCH_FRAMEWORK_RUNNER_REGISTRATION_H_
