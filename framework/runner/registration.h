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
  // The Google Benchmark family registered for this case (profile_pass.h
  // re-runs it with a fixed iteration count).
  benchmark::internal::Benchmark* family = nullptr;
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
