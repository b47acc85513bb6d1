// pmubench::Fixture: the base class of PMU_BENCHMARK_F cases, like
// benchmark::Fixture. SetUp runs before the timed loop and TearDown after it,
// once per thread and batch; neither is counted.
//
//   class Table : public pmubench::Fixture {
//    public:
//     void SetUp(const pmubench::State& state) override {
//       map_ = Fill(state.range(0));
//     }
//     void TearDown(const pmubench::State&) override { map_.clear(); }
//    protected:
//     absl::flat_hash_map<int, int> map_;
//   };
//   PMU_BENCHMARK_F(Table, Lookup)(pmubench::State& state) {
//     for (auto _ : state) benchmark::DoNotOptimize(map_.find(42));
//   }
//
// As in benchmark::Fixture, SetUp and TearDown come in two overloads, taking
// `const State&` or `State&`; each default calls the other's const form, so a
// Google Benchmark fixture converted by search and replace overrides the one
// it overrode before.
//
// NOTE: as with benchmark::Fixture, one object serves every thread of a
// ->Threads(n) case; SetUp/TearDown run on each thread concurrently.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_API_FIXTURE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_API_FIXTURE_H_

#include "framework/runner/measure/state.h"

namespace pmubench {

class Fixture {
 public:
  virtual ~Fixture() = default;

  virtual void SetUp(const State&) {}
  virtual void TearDown(const State&) {}
  virtual void SetUp(State& state) { SetUp(static_cast<const State&>(state)); }
  virtual void TearDown(State& state) {
    TearDown(static_cast<const State&>(state));
  }

  // SetUp, the case body, TearDown.
  void Run(State& state) {
    this->SetUp(state);
    BenchmarkCase(state);
    this->TearDown(state);
  }

 protected:
  virtual void BenchmarkCase(State& state) = 0;
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_API_FIXTURE_H_
