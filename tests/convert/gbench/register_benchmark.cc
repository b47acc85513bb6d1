// Google Benchmark source for scripts/convert's end-to-end test: what
// pmubench cannot take over. A case registered at run time
// (benchmark::RegisterBenchmark) and ->Setup/->Teardown functions keep
// Google Benchmark's State; the converter says so (exit 1), and the file
// still builds and runs every case (the run-time one times only).
#include "benchmark/benchmark.h"

#include <string>

static int g_prepared = 0;

static void Prepare(const benchmark::State&) { g_prepared = 1; }
static void Finish(const benchmark::State&) { g_prepared = 0; }

static void BM_Prepared(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(g_prepared);
}
BENCHMARK(BM_Prepared)->Setup(Prepare)->Teardown(Finish);

static void BM_AtRunTime(benchmark::State& state, int step) {
  int x = 0;
  for (auto _ : state) benchmark::DoNotOptimize(x += step);
}

[[maybe_unused]] static const bool g_registered = [] {
  for (int step : {1, 2}) {
    benchmark::RegisterBenchmark(("BM_AtRunTime/step:" + std::to_string(step)).c_str(),
                                 BM_AtRunTime, step);
  }
  return true;
}();

BENCHMARK_MAIN();
