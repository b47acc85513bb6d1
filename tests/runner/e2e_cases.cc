// Cases for runner_e2e_tests, which runs this binary (linked with
// pmubench_main) as a subprocess and checks exit codes, notices and the JSON
// file.
#include <cstdint>

#include "framework/pmubench.h"
#include "tests/runner/fresh_pages.h"

namespace {

using pmubench::testing::FreshPages;

// range(0) fresh pages per iteration: exactly range(0) page faults each.
void BM_TouchPages(pmubench::State& state) {
  const auto per_iteration = static_cast<size_t>(state.range(0));
  FreshPages pages(per_iteration * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(per_iteration);
}
PMU_BENCHMARK(BM_TouchPages)->Arg(4)->Iterations(64);

// Fails mid-run; the other cases must still be reported and written.
void BM_Fails(pmubench::State& state) {
  for (auto _ : state) {
    state.SkipWithError("deliberate failure");
    break;
  }
}
PMU_BENCHMARK(BM_Fails)->Iterations(8);

// Its own events: reported instead of the default set.
void BM_OwnEvents(pmubench::State& state) {
  FreshPages pages(2 * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(2);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_OwnEvents, "page-faults,task-clock")
    ->Iterations(32);

// Hardware events: fall back to software events without a hardware PMU.
void BM_HardwareEvents(pmubench::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 3);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_HardwareEvents, "cycles,instructions")
    ->Iterations(1000);

// A plain Google Benchmark case in the same binary: time only.
void BM_Plain(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 3);
}
BENCHMARK(BM_Plain)->Iterations(1000);

}  // namespace
