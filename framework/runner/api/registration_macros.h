// The PMU_BENCHMARK* macros: Google Benchmark 1.7.1's BENCHMARK* macros with
// a PMU_ prefix, so that scripts/convert turns a Google Benchmark file into
// a pmubench one (BENCHMARK -> PMU_BENCHMARK, benchmark::State ->
// pmubench::State where it is a case's parameter, benchmark::Fixture ->
// pmubench::Fixture, BENCHMARK_MAIN -> PMUBENCH_MAIN).
//
//   PMU_BENCHMARK(BM_X)->Arg(8);                  // void
//   BM_X(pmubench::State&) PMU_BENCHMARK(BM_Templ<int, 8>);              // as
//   BENCHMARK(...) PMU_BENCHMARK_TEMPLATE(BM_Templ, int, 8);     // also
//   TEMPLATE1, TEMPLATE2 PMU_BENCHMARK_CAPTURE(BM_X, small, 16);
//   PMU_BENCHMARK_F(Table, Lookup)(pmubench::State& state) { ... }
//   PMU_BENCHMARK_DEFINE_F(Table, Insert)(pmubench::State& state) { ... }
//   PMU_BENCHMARK_REGISTER_F(Table, Insert)->Arg(8);
//   PMU_BENCHMARK_TEMPLATE_F(TTable, Lookup, int)(pmubench::State& st) {...}
//   PMUBENCH_MAIN();                              // as BENCHMARK_MAIN()
//
// Beyond Google Benchmark: PMU_BENCHMARK_WITH_COUNTERS(BM_X, "spec,...") and
// PMU_BENCHMARK_REGISTER_F_WITH_COUNTERS(Base, Method, "spec,...") name the
// case's own events (--counters still overrides them).
//
// Every registration returns benchmark::internal::Benchmark*, so builder
// calls chain, and records whether the registering file was compiled with
// optimization (build_info.h).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_API_REGISTRATION_MACROS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_API_REGISTRATION_MACROS_H_

#include "framework/runner/api/fixture.h"
#include "framework/runner/api/registration.h"
#include "framework/runner/measure/state.h"
#include "framework/runner/run/build_info.h"
#include "framework/runner/run/run_main.h"

// Evaluated where this header is included: in the user's translation unit.
#ifdef __OPTIMIZE__
#define PMUBENCH_PRIVATE_OPTIMIZED true
#else
#define PMUBENCH_PRIVATE_OPTIMIZED false
#endif

#define PMUBENCH_PRIVATE_CONCAT2(a, b) a##b
#define PMUBENCH_PRIVATE_CONCAT(a, b) PMUBENCH_PRIVATE_CONCAT2(a, b)
#define PMUBENCH_PRIVATE_NAME() \
  PMUBENCH_PRIVATE_CONCAT(pmubench_registered_case_, __COUNTER__)
#define PMUBENCH_PRIVATE_DECLARE()                          \
  [[maybe_unused]] static ::benchmark::internal::Benchmark* \
  PMUBENCH_PRIVATE_NAME()
#define PMUBENCH_PRIVATE_NOTE_BUILD() \
  ::pmubench::internal::NoteCaseBuild(__FILE__, PMUBENCH_PRIVATE_OPTIMIZED)

// Registers the callable `...` (may contain commas: BM_X<int, 8>).
#define PMUBENCH_PRIVATE_REGISTER(name, counters, ...)              \
  PMUBENCH_PRIVATE_DECLARE() = (PMUBENCH_PRIVATE_NOTE_BUILD(),      \
                                ::pmubench::internal::RegisterCase( \
                                    name, (__VA_ARGS__), counters, __FILE__))

// PMU_BENCHMARK(BM_X): BM_X is `void BM_X(pmubench::State&)`; counts the
// default set (or --counters).
#define PMU_BENCHMARK(...) \
  PMUBENCH_PRIVATE_REGISTER(#__VA_ARGS__, "", __VA_ARGS__)

// PMU_BENCHMARK_WITH_COUNTERS(BM_X, "L1-dcache-loads,L1-dcache-load-misses"):
// the case's own events ("none": this case counts nothing); --counters
// overrides them. Events that need a hardware PMU fall back to the software
// set, with a notice, where the machine has none.
#define PMU_BENCHMARK_WITH_COUNTERS(fn, counters) \
  PMUBENCH_PRIVATE_REGISTER(#fn, counters, fn)

// Google Benchmark's old-style shorthands.
#define PMU_BENCHMARK_WITH_ARG(n, a) PMU_BENCHMARK(n)->Arg((a))
#define PMU_BENCHMARK_WITH_ARG2(n, a1, a2) PMU_BENCHMARK(n)->Args({(a1), (a2)})
#define PMU_BENCHMARK_WITH_UNIT(n, t) PMU_BENCHMARK(n)->Unit((t))
#define PMU_BENCHMARK_RANGE(n, lo, hi) PMU_BENCHMARK(n)->Range((lo), (hi))
#define PMU_BENCHMARK_RANGE2(n, l1, h1, l2, h2) \
  PMU_BENCHMARK(n)->RangePair({{(l1), (h1)}, {(l2), (h2)}})

// PMU_BENCHMARK_CAPTURE(BM_X, label, args...): BM_X(state, args...) under
// the name "BM_X/label", like BENCHMARK_CAPTURE.
#define PMU_BENCHMARK_CAPTURE(fn, label, ...)                       \
  PMUBENCH_PRIVATE_REGISTER(#fn "/" #label, "",                     \
                            [](::pmubench::State& pmubench_state) { \
                              fn(pmubench_state, __VA_ARGS__);      \
                            })

// Templated functions, named as Google Benchmark names them ("BM_X<int>").
#define PMU_BENCHMARK_TEMPLATE1(n, a) \
  PMUBENCH_PRIVATE_REGISTER(#n "<" #a ">", "", n<a>)
#define PMU_BENCHMARK_TEMPLATE2(n, a, b) \
  PMUBENCH_PRIVATE_REGISTER(#n "<" #a "," #b ">", "", n<a, b>)
#define PMU_BENCHMARK_TEMPLATE(n, ...) \
  PMUBENCH_PRIVATE_REGISTER(#n "<" #__VA_ARGS__ ">", "", n<__VA_ARGS__>)

// Fixture forms (the class derives from pmubench::Fixture, fixture.h). As in
// Google Benchmark, the parameter list follows the macro:
//   PMU_BENCHMARK_F(Table, Lookup)(pmubench::State& state) { ... }
// The generated class carries the case's name, so that REGISTER_F finds the
// name of a templated fixture too.
#define PMUBENCH_PRIVATE_FIXTURE_CLASS(Base, Method) \
  Base##_##Method##_PmuBenchmark
#define PMUBENCH_PRIVATE_DECLARE_F_AS(Base, Method, case_name, ...)         \
  class PMUBENCH_PRIVATE_FIXTURE_CLASS(Base, Method) : public __VA_ARGS__ { \
   public:                                                                  \
    static constexpr const char* kPmubenchCaseName = case_name;             \
                                                                            \
   protected:                                                               \
    void BenchmarkCase(::pmubench::State&) override;                        \
  };
#define PMUBENCH_PRIVATE_DECLARE_F(Base, Method) \
  PMUBENCH_PRIVATE_DECLARE_F_AS(Base, Method, #Base "/" #Method, Base)
#define PMUBENCH_PRIVATE_TEMPLATE1_DECLARE_F(Base, Method, a)            \
  PMUBENCH_PRIVATE_DECLARE_F_AS(Base, Method, #Base "<" #a ">/" #Method, \
                                Base<a>)
#define PMUBENCH_PRIVATE_TEMPLATE2_DECLARE_F(Base, Method, a, b) \
  PMUBENCH_PRIVATE_DECLARE_F_AS(Base, Method,                    \
                                #Base "<" #a "," #b ">/" #Method, Base<a, b>)
#define PMUBENCH_PRIVATE_TEMPLATE_DECLARE_F(Base, Method, ...) \
  PMUBENCH_PRIVATE_DECLARE_F_AS(                               \
      Base, Method, #Base "<" #__VA_ARGS__ ">/" #Method, Base<__VA_ARGS__>)
#define PMUBENCH_PRIVATE_CASE_BODY(Base, Method) \
  void PMUBENCH_PRIVATE_FIXTURE_CLASS(Base, Method)::BenchmarkCase

#define PMU_BENCHMARK_REGISTER_F_WITH_COUNTERS(Base, Method, counters)       \
  PMUBENCH_PRIVATE_DECLARE() =                                               \
      (PMUBENCH_PRIVATE_NOTE_BUILD(),                                        \
       ::pmubench::internal::RegisterFixture<PMUBENCH_PRIVATE_FIXTURE_CLASS( \
           Base, Method)>(                                                   \
           PMUBENCH_PRIVATE_FIXTURE_CLASS(Base, Method)::kPmubenchCaseName,  \
           counters, __FILE__))
#define PMU_BENCHMARK_REGISTER_F(Base, Method) \
  PMU_BENCHMARK_REGISTER_F_WITH_COUNTERS(Base, Method, "")

#define PMU_BENCHMARK_DEFINE_F(Base, Method) \
  PMUBENCH_PRIVATE_DECLARE_F(Base, Method)   \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)
#define PMU_BENCHMARK_TEMPLATE1_DEFINE_F(Base, Method, a) \
  PMUBENCH_PRIVATE_TEMPLATE1_DECLARE_F(Base, Method, a)   \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)
#define PMU_BENCHMARK_TEMPLATE2_DEFINE_F(Base, Method, a, b) \
  PMUBENCH_PRIVATE_TEMPLATE2_DECLARE_F(Base, Method, a, b)   \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)
#define PMU_BENCHMARK_TEMPLATE_DEFINE_F(Base, Method, ...)       \
  PMUBENCH_PRIVATE_TEMPLATE_DECLARE_F(Base, Method, __VA_ARGS__) \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)

#define PMU_BENCHMARK_F(Base, Method)      \
  PMUBENCH_PRIVATE_DECLARE_F(Base, Method) \
  PMU_BENCHMARK_REGISTER_F(Base, Method);  \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)
#define PMU_BENCHMARK_TEMPLATE1_F(Base, Method, a)      \
  PMUBENCH_PRIVATE_TEMPLATE1_DECLARE_F(Base, Method, a) \
  PMU_BENCHMARK_REGISTER_F(Base, Method);               \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)
#define PMU_BENCHMARK_TEMPLATE2_F(Base, Method, a, b)      \
  PMUBENCH_PRIVATE_TEMPLATE2_DECLARE_F(Base, Method, a, b) \
  PMU_BENCHMARK_REGISTER_F(Base, Method);                  \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)
#define PMU_BENCHMARK_TEMPLATE_F(Base, Method, ...)              \
  PMUBENCH_PRIVATE_TEMPLATE_DECLARE_F(Base, Method, __VA_ARGS__) \
  PMU_BENCHMARK_REGISTER_F(Base, Method);                        \
  PMUBENCH_PRIVATE_CASE_BODY(Base, Method)

// PMUBENCH_MAIN(): a main() that runs pmubench's (--counters, the pmubench_*
// JSON context, the console reporter), as BENCHMARK_MAIN() defines Google
// Benchmark's. Linking pmubench_main as well is harmless: its main() is
// weak. PMU_BENCHMARK_MAIN() is the same, for a replace that also renamed
// BENCHMARK_MAIN.
#define PMUBENCH_MAIN()                                                       \
  int main(int argc, char** argv) { return ::pmubench::RunMain(argc, argv); } \
  int main(int, char**)
#define PMU_BENCHMARK_MAIN() PMUBENCH_MAIN()

#endif  // PMUBENCH_FRAMEWORK_RUNNER_API_REGISTRATION_MACROS_H_
