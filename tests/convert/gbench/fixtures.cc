// Google Benchmark source for scripts/convert's end-to-end test: fixtures
// (BENCHMARK_F, BENCHMARK_DEFINE_F + BENCHMARK_REGISTER_F), both SetUp
// overloads, a member defined outside its class and a derived fixture.
#include "benchmark/benchmark.h"

#include <map>
#include <memory>
#include <vector>

class Table : public benchmark::Fixture {
 public:
  void SetUp(const ::benchmark::State& state) override;
  void TearDown(const ::benchmark::State&) override { map_.clear(); }

 protected:
  std::map<int, int> map_;
};

void Table::SetUp(const ::benchmark::State& state) {
  const int n = 16 * state.threads();
  for (int i = 0; i < n; ++i) map_[i] = i * i;
}

BENCHMARK_F(Table, Lookup)(benchmark::State& state) {
  int key = 0;
  for (auto _ : state) benchmark::DoNotOptimize(map_.find(key++ % 16));
}

BENCHMARK_DEFINE_F(Table, Scan)(benchmark::State& st) {
  for (auto _ : st) {
    long sum = 0;
    for (const auto& kv : map_) sum += kv.second;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK_REGISTER_F(Table, Scan)->Arg(8)->Arg(32);

// The non-const overloads, as Google Benchmark offers them.
struct Buffer : public ::benchmark::Fixture {
  void SetUp(::benchmark::State& state) override {
    data = std::make_unique<std::vector<char>>(static_cast<size_t>(state.range(0)));
  }
  void TearDown(::benchmark::State&) override { data.reset(); }
  std::unique_ptr<std::vector<char>> data;
};

BENCHMARK_DEFINE_F(Buffer, Fill)(benchmark::State& state) {
  for (auto _ : state) {
    for (char& c : *data) c = 'x';
    benchmark::ClobberMemory();
  }
}
BENCHMARK_REGISTER_F(Buffer, Fill)->Range(8, 64)->Threads(1);

// Derived from a fixture of this file.
class BigTable : public Table {
 public:
  void SetUp(const benchmark::State& state) override {
    Table::SetUp(state);
    map_[1000] = 1;
  }
};

BENCHMARK_F(BigTable, Size)(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(map_.size());
}

BENCHMARK_MAIN();
