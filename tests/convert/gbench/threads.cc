// Google Benchmark source for scripts/convert's end-to-end test: threaded
// cases (Threads, ThreadRange, DenseThreadRange, ThreadPerCpu).
#include <benchmark/benchmark.h>

#include <atomic>

static std::atomic<long> g_shared{0};

static void BM_ThreadLocalWork(benchmark::State& state) {
  long mine = state.thread_index();
  for (auto _ : state) benchmark::DoNotOptimize(mine = mine * 3 + 1);
  state.counters["threads"] = state.threads();
}
BENCHMARK(BM_ThreadLocalWork)->Threads(1)->Threads(2);
BENCHMARK(BM_ThreadLocalWork)->ThreadRange(1, 4);
BENCHMARK(BM_ThreadLocalWork)->DenseThreadRange(1, 3);
BENCHMARK(BM_ThreadLocalWork)->ThreadPerCpu();

static void BM_SharedCounter(benchmark::State& state) {
  if (state.thread_index() == 0) g_shared = 0;
  for (auto _ : state) g_shared.fetch_add(1, std::memory_order_relaxed);
}
BENCHMARK(BM_SharedCounter)->Threads(2)->UseRealTime();

BENCHMARK_MAIN();
