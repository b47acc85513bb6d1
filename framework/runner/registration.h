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
#ifndef PMUBENCH_FRAMEWORK_RUNNER_REGISTRATION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_REGISTRATION_H_

#include <benchmark/benchmark.h>

#include <memory>

#include "framework/runner/case_registry.h"

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

#define PMUBENCH_PRIVATE_CONCAT2(a, b) a##b
#define PMUBENCH_PRIVATE_CONCAT(a, b) PMUBENCH_PRIVATE_CONCAT2(a, b)
#define PMUBENCH_PRIVATE_NAME() \
  PMUBENCH_PRIVATE_CONCAT(pmubench_registered_case_, __COUNTER__)
#define PMUBENCH_PRIVATE_DECLARE()                          \
  [[maybe_unused]] static ::benchmark::internal::Benchmark* \
  PMUBENCH_PRIVATE_NAME()

// PMU_BENCHMARK(BM_X): BM_X is `void BM_X(pmubench::State&)`; counts the
// default set (or --counters).
#define PMU_BENCHMARK(fn)      \
  PMUBENCH_PRIVATE_DECLARE() = \
      ::pmubench::internal::RegisterCase(#fn, fn, "", __FILE__)

// PMU_BENCHMARK_WITH_COUNTERS(BM_X, "L1-dcache-loads,L1-dcache-load-misses"):
// the case's own events ("none": this case counts nothing); --counters
// overrides them. Events that need a
// hardware PMU fall back to the software set, with a notice, where the
// machine has none.
#define PMU_BENCHMARK_WITH_COUNTERS(fn, counters) \
  PMUBENCH_PRIVATE_DECLARE() =                    \
      ::pmubench::internal::RegisterCase(#fn, fn, counters, __FILE__)

// PMU_BENCHMARK_CAPTURE(BM_X, label, args...): BM_X(state, args...) under
// the name "BM_X/label", like BENCHMARK_CAPTURE.
#define PMU_BENCHMARK_CAPTURE(fn, label, ...)                      \
  PMUBENCH_PRIVATE_DECLARE() = ::pmubench::internal::RegisterCase( \
      #fn "/" #label,                                              \
      [](::pmubench::State& pmubench_state) {                      \
        fn(pmubench_state, __VA_ARGS__);                           \
      },                                                           \
      "", __FILE__)

// Fixture forms (the class derives from pmubench::Fixture, fixture.h). The
// body that follows the macro sees `pmubench::State& state`:
//   PMU_BENCHMARK_F(Table, Lookup) { for (auto _ : state) ... }
//   PMU_BENCHMARK_DEFINE_F(Table, Insert) { for (auto _ : state) ... }
//   PMU_BENCHMARK_REGISTER_F(Table, Insert)->Arg(8);
#define PMUBENCH_PRIVATE_FIXTURE_CLASS(Base, Method) \
  Base##_##Method##_PmuBenchmark
#define PMUBENCH_PRIVATE_DECLARE_F(Base, Method)                     \
  class PMUBENCH_PRIVATE_FIXTURE_CLASS(Base, Method) : public Base { \
   protected:                                                        \
    void BenchmarkCase(::pmubench::State& state) override;           \
  };
#define PMU_BENCHMARK_DEFINE_F(Base, Method) \
  PMUBENCH_PRIVATE_DECLARE_F(Base, Method)   \
  void PMUBENCH_PRIVATE_FIXTURE_CLASS(       \
      Base, Method)::BenchmarkCase(::pmubench::State& state)
#define PMU_BENCHMARK_REGISTER_F_WITH_COUNTERS(Base, Method, counters)      \
  PMUBENCH_PRIVATE_DECLARE() =                                              \
      ::pmubench::internal::RegisterFixture<PMUBENCH_PRIVATE_FIXTURE_CLASS( \
          Base, Method)>(#Base "/" #Method, counters, __FILE__)
#define PMU_BENCHMARK_REGISTER_F(Base, Method) \
  PMU_BENCHMARK_REGISTER_F_WITH_COUNTERS(Base, Method, "")
#define PMU_BENCHMARK_F(Base, Method)      \
  PMUBENCH_PRIVATE_DECLARE_F(Base, Method) \
  PMU_BENCHMARK_REGISTER_F(Base, Method);  \
  void PMUBENCH_PRIVATE_FIXTURE_CLASS(     \
      Base, Method)::BenchmarkCase(::pmubench::State& state)

#endif  // PMUBENCH_FRAMEWORK_RUNNER_REGISTRATION_H_
