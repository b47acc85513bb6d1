// Google Benchmark source for scripts/convert's end-to-end test:
// PauseTiming and ResumeTiming around per-iteration setup.
#include "benchmark/benchmark.h"

#include <algorithm>
#include <vector>

static void BM_SortFresh(benchmark::State& state) {
  std::vector<int> v(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(v.size() - i);
    state.ResumeTiming();
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_SortFresh)->Arg(32)->Arg(256);

// Paused only once, before the loop would have started timing.
static void BM_PauseOnce(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) {
    if (x == 0) {
      state.PauseTiming();
      x = 1;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(x += 2);
  }
}
BENCHMARK(BM_PauseOnce);

BENCHMARK_MAIN();
