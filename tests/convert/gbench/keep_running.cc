// Google Benchmark source for scripts/convert's end-to-end test: the
// KeepRunning and KeepRunningBatch loops, fixed iteration counts, and a
// case that fails with SkipWithError.
#include <benchmark/benchmark.h>

static void BM_KeepRunningLoop(benchmark::State& state) {
  int x = 0;
  while (state.KeepRunning()) benchmark::DoNotOptimize(++x);
}
BENCHMARK(BM_KeepRunningLoop);
BENCHMARK(BM_KeepRunningLoop)->Iterations(1000);

static void BM_KeepRunningBatchLoop(benchmark::State& state) {
  const benchmark::IterationCount batch = state.range(0);
  int x = 0;
  while (state.KeepRunningBatch(batch)) {
    for (benchmark::IterationCount i = 0; i < batch; ++i) benchmark::DoNotOptimize(++x);
  }
}
BENCHMARK(BM_KeepRunningBatchLoop)->Arg(1)->Arg(10);
BENCHMARK(BM_KeepRunningBatchLoop)->Arg(7)->Iterations(50);

static void BM_FailsOnPurpose(benchmark::State& state) {
  for (auto _ : state) {
    state.SkipWithError("no input file (on purpose)");
    break;
  }
}
BENCHMARK(BM_FailsOnPurpose);

BENCHMARK_MAIN();
