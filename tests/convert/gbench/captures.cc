// Google Benchmark source for scripts/convert's end-to-end test:
// BENCHMARK_CAPTURE with extra arguments of several kinds.
#include "benchmark/benchmark.h"

#include <string>
#include <utility>
#include <vector>

template <class... Extra>
void BM_Concat(benchmark::State& state, Extra&&... extra) {
  const std::string parts[] = {std::string(extra)...};
  for (auto _ : state) {
    std::string s;
    for (const std::string& p : parts) s += p;
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK_CAPTURE(BM_Concat, two_words, "ab", "cd");
// A comma inside a string literal, an argument with parentheses.
BENCHMARK_CAPTURE(BM_Concat, with_comma, "a,b", std::string(3, 'x'));

void BM_Scaled(benchmark::State& state, double factor, const std::vector<int>& v) {
  double total = 0;
  for (auto _ : state) {
    for (int x : v) total += factor * x;
    benchmark::DoNotOptimize(total);
  }
  state.SetLabel("factor " + std::to_string(factor));
}
BENCHMARK_CAPTURE(BM_Scaled, half, 0.5, std::vector<int>{1, 2, 3})->Arg(4);
BENCHMARK_CAPTURE(BM_Scaled, triple, 3.0, std::vector<int>(5, 7))->Iterations(100);

BENCHMARK_MAIN();
