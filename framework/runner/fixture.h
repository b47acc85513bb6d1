// pmubench::Fixture: the base class of PMU_BENCHMARK_F cases, like
// benchmark::Fixture. SetUp runs before the timed loop and TearDown after it,
// once per thread and batch; neither is counted.
//
//   class Table : public pmubench::Fixture {
//    public:
//     void SetUp(pmubench::State& state) override {
//       map_ = Fill(state.range(0));
//     }
//     void TearDown(pmubench::State&) override { map_.clear(); }
//    protected:
//     absl::flat_hash_map<int, int> map_;
//   };
//   PMU_BENCHMARK_F(Table, Lookup) {
//     for (auto _ : state) benchmark::DoNotOptimize(map_.find(42));
//   }
//
// NOTE: as with benchmark::Fixture, one object serves every thread of a
// ->Threads(n) case; SetUp/TearDown run on each thread concurrently.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_FIXTURE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_FIXTURE_H_

#include "framework/runner/state.h"

namespace pmubench {

class Fixture {
 public:
  virtual ~Fixture() = default;

  virtual void SetUp(State&) {}
  virtual void TearDown(State&) {}

  // SetUp, the case body, TearDown.
  void Run(State& state) {
    SetUp(state);
    BenchmarkCase(state);
    TearDown(state);
  }

 protected:
  virtual void BenchmarkCase(State& state) = 0;
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_FIXTURE_H_
