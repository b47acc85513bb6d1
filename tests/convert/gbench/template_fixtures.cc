// Google Benchmark source for scripts/convert's end-to-end test: templated
// fixtures through every BENCHMARK_TEMPLATE*_F and _DEFINE_F form.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

template <typename T>
class Vec : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State&) override { v_.assign(32, T{1}); }
  void TearDown(const benchmark::State&) override { v_.clear(); }

 protected:
  std::vector<T> v_;
};

BENCHMARK_TEMPLATE_F(Vec, SumInt, int)(benchmark::State& state) {
  for (auto _ : state) {
    int sum = 0;
    for (int x : this->v_) sum += x;
    benchmark::DoNotOptimize(sum);
  }
}

BENCHMARK_TEMPLATE1_F(Vec, SumDouble, double)(benchmark::State& state) {
  for (auto _ : state) {
    double sum = 0;
    for (double x : this->v_) sum += x;
    benchmark::DoNotOptimize(sum);
  }
}

BENCHMARK_TEMPLATE_DEFINE_F(Vec, Scale, long)(benchmark::State& state) {
  for (auto _ : state) {
    for (long& x : this->v_) x *= 1;
    benchmark::ClobberMemory();
  }
}
BENCHMARK_REGISTER_F(Vec, Scale)->Arg(1);

BENCHMARK_TEMPLATE1_DEFINE_F(Vec, Count, char)(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(this->v_.size());
}
BENCHMARK_REGISTER_F(Vec, Count);

template <typename T, std::size_t N>
class Arr : public benchmark::Fixture {
 public:
  void SetUp(benchmark::State&) override {
    for (std::size_t i = 0; i < N; ++i) a_[i] = static_cast<T>(i);
  }

 protected:
  T a_[N];
};

BENCHMARK_TEMPLATE2_F(Arr, Sum, int, 16)(benchmark::State& state) {
  for (auto _ : state) {
    int s = 0;
    for (int x : this->a_) s += x;
    benchmark::DoNotOptimize(s);
  }
}

BENCHMARK_TEMPLATE2_DEFINE_F(Arr, Max, unsigned, 8)(benchmark::State& state) {
  for (auto _ : state) {
    unsigned m = 0;
    for (unsigned x : this->a_) m = x > m ? x : m;
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK_REGISTER_F(Arr, Max)->Iterations(200);

BENCHMARK_MAIN();
