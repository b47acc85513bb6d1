// Google Benchmark source for scripts/convert's end-to-end test: manual
// timing (UseManualTime with SetIterationTime) and other time settings.
#include "benchmark/benchmark.h"

#include <chrono>

static void BM_ManualTimed(benchmark::State& state) {
  long work = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) benchmark::DoNotOptimize(work += i);
    auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
  }
}
BENCHMARK(BM_ManualTimed)->UseManualTime();
BENCHMARK(BM_ManualTimed)->UseManualTime()->Unit(benchmark::kMicrosecond)->Arg(2);

static void BM_ProcessTime(benchmark::State& state) {
  long work = 0;
  for (auto _ : state) benchmark::DoNotOptimize(work += 3);
}
BENCHMARK(BM_ProcessTime)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_ProcessTime)->MinTime(0.01)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
