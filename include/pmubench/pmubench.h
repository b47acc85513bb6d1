// pmubench: Google Benchmark cases with hardware performance counters per
// iteration. This is the one header a benchmark file includes, pmubench's
// public API:
//
//   #include <pmubench/pmubench.h>
//
//   static void BM_Sum(pmubench::State& state) {
//     std::vector<int> v = Make(state.range(0));   // setup: not counted
//     for (auto _ : state) benchmark::DoNotOptimize(Sum(v));  // counted
//     state.SetItemsProcessed(state.iterations() * v.size());
//   }
//   PMU_BENCHMARK(BM_Sum)->Range(1 << 10, 1 << 20);
//
//   // A case that names its own events (`--counters` still overrides them):
//   PMU_BENCHMARK_WITH_COUNTERS(BM_Chase, "L1-dcache-load-misses,LLC-loads");
//
//   // Fixture form, written as BENCHMARK_F is:
//   class Table : public pmubench::Fixture {
//    public:
//     void SetUp(const pmubench::State& state) override { ... }
//     void TearDown(const pmubench::State& state) override { ... }
//   };
//   PMU_BENCHMARK_F(Table, Lookup)(pmubench::State& state) {
//     for (auto _ : state) ...
//   }
//   // or, to call builders:
//   PMU_BENCHMARK_DEFINE_F(Table, Insert)(pmubench::State& st) { ... }
//   PMU_BENCHMARK_REGISTER_F(Table, Insert)->Arg(8);
//
// Every BENCHMARK* macro of Google Benchmark 1.7.1 has its PMU_BENCHMARK*
// twin (registration_macros.h), so scripts/convert turns a Google Benchmark
// file into a pmubench one; PMUBENCH_MAIN() replaces BENCHMARK_MAIN().
//
// Every PMU_BENCHMARK* macro returns benchmark::internal::Benchmark*, so every
// builder call (Arg, Range, Threads, Repetitions, MinTime, Unit, ...) and every
// --benchmark_* flag works unchanged. Plain BENCHMARK cases may live in the
// same binary and report time only. Link `pmubench_main` for a main() that
// adds --counters and the pmubench_* JSON context (or write PMUBENCH_MAIN()).
//
// It resolves through the pmubench library's include directories: include/
// of the source tree, <prefix>/include once installed (CMake, pkg-config);
// in Bazel, //include:pmubench, which //framework:pmubench (and so
// :pmubench_main) depends on.
// The headers it pulls in are pmubench's internals ("framework/..."):
// include this one, not them.
#ifndef PMUBENCH_PMUBENCH_H_
#define PMUBENCH_PMUBENCH_H_

#include <benchmark/benchmark.h>

#include "framework/runner/api/fixture.h"
#include "framework/runner/api/registration.h"
#include "framework/runner/api/registration_macros.h"
#include "framework/runner/measure/state.h"
#include "framework/runner/output/version.h"  // PMUBENCH_VERSION

#endif  // PMUBENCH_PMUBENCH_H_
