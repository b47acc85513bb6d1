// Google Benchmark source for scripts/convert's end-to-end test: labels,
// user counters, items and bytes processed, complexity and repetitions.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

static void BM_CopyBytes(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<char> src(n, 'a'), dst(n);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(n));
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::to_string(n) + " bytes");
  state.counters["size"] = static_cast<double>(n);
  state.counters["rate"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
  state.counters["per_iter"] =
      benchmark::Counter(1, benchmark::Counter::kAvgIterations);
  state.counters["kibi"] = benchmark::Counter(2048, benchmark::Counter::kDefaults,
                                              benchmark::Counter::OneK::kIs1024);
}
BENCHMARK(BM_CopyBytes)->Arg(64)->Arg(4096);

static void BM_Linear(benchmark::State& state) {
  std::vector<int> v(static_cast<size_t>(state.range(0)), 1);
  for (auto _ : state) {
    long sum = 0;
    for (int x : v) sum += x;
    benchmark::DoNotOptimize(sum);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Linear)->RangeMultiplier(4)->Range(16, 1024)->Complexity(benchmark::oN);
BENCHMARK(BM_Linear)->Name("BM_Linear_Lambda")->Arg(16)->Arg(64)
    ->Complexity([](benchmark::IterationCount n) { return static_cast<double>(n); });

static void BM_Repeated(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) benchmark::DoNotOptimize(++x);
}
BENCHMARK(BM_Repeated)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_Repeated)->Name("BM_Repeated_Displayed")->Repetitions(2)->DisplayAggregatesOnly(true);

BENCHMARK_MAIN();
