// Google Benchmark source for scripts/convert's end-to-end test: templated
// cases through BENCHMARK_TEMPLATE, _TEMPLATE1, _TEMPLATE2 and BENCHMARK
// with a template-id.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <deque>
#include <list>
#include <vector>

template <class Container>
void BM_PushBack(benchmark::State& state) {
  for (auto _ : state) {
    Container c;
    for (int i = 0; i < 16; ++i) c.push_back(i);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK_TEMPLATE(BM_PushBack, std::vector<int>);
BENCHMARK_TEMPLATE(BM_PushBack, std::deque<int>)->Arg(1);
BENCHMARK_TEMPLATE1(BM_PushBack, std::list<int>);

template <class T, std::size_t N>
void BM_FillArray(benchmark::State& state) {
  T items[N];
  for (auto _ : state) {
    for (std::size_t i = 0; i < N; ++i) items[i] = static_cast<T>(i);
    benchmark::DoNotOptimize(items);
  }
}
BENCHMARK_TEMPLATE2(BM_FillArray, char, 64);
BENCHMARK_TEMPLATE(BM_FillArray, double, 8);
BENCHMARK(BM_FillArray<int, 32>);

// A templated case registered with BENCHMARK_TEMPLATE and arguments.
template <int kShift>
static void BM_Shift(benchmark::State& state) {
  unsigned x = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(x = (x << kShift) | 1u);
}
BENCHMARK_TEMPLATE(BM_Shift, 3)->Range(2, 8);

BENCHMARK_MAIN();
