// Google Benchmark source for scripts/convert's end-to-end test: arguments
// and ranges, through builders and through the old-style macros.
#include "benchmark/benchmark.h"

#include <cstdint>
#include <numeric>
#include <vector>

static std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

static void BM_SumVector(benchmark::State& state) {
  const std::vector<int64_t> v = Iota(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), int64_t{0}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SumVector)->Arg(8)->Arg(64);
BENCHMARK(BM_SumVector)->Name("BM_SumVector_Ranged")->RangeMultiplier(4)->Range(4, 256);
BENCHMARK(BM_SumVector)->Name("BM_SumVector_Dense")->DenseRange(10, 30, 10);

// Two arguments: the old accessors (range_x, range_y) are deprecated but
// still in 1.7.1.
static void BM_Grid(benchmark::State& state) {
  const int64_t rows = state.range_x();
  const int64_t cols = state.range_y();
  int64_t cells = 0;
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      cells += cols;
      benchmark::ClobberMemory();
    }
  }
  benchmark::DoNotOptimize(cells);
}
BENCHMARK(BM_Grid)->Args({2, 3})->ArgPair(4, 5);
BENCHMARK(BM_Grid)->Name("BM_Grid_Ranges")->Ranges({{1, 8}, {2, 4}});
BENCHMARK(BM_Grid)->Name("BM_Grid_Product")->ArgsProduct({{1, 3}, {5, 7}});
BENCHMARK(BM_Grid)->Name("BM_Grid_Named")->ArgNames({"rows", "cols"})->Args({6, 2});

static void TwoSizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : {3, 9}) b->Args({n, n + 1});
}
BENCHMARK(BM_Grid)->Name("BM_Grid_Applied")->Apply(TwoSizes);

// The old-style shorthands.
static void BM_Shorthand(benchmark::State& state) {
  int64_t x = state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(x += 1);
}
BENCHMARK_WITH_ARG(BM_Shorthand, 5);
BENCHMARK_WITH_ARG2(BM_Grid, 2, 2);
BENCHMARK_WITH_UNIT(BM_SumVector, benchmark::kMicrosecond)->Arg(16);
BENCHMARK_RANGE(BM_Shorthand, 1, 64);
// (BENCHMARK_RANGE2 does not compile in Google Benchmark 1.7.1: it passes
// RangePair a braced list; RangePair takes four integers.)

BENCHMARK_MAIN();
