// Cases for --pmubench_jobs end to end (jobs_e2e_test.cc natively,
// tests/python/test_jobs_simulate.py under callgrind): counts known exactly
// natively (page faults on fresh pages) and under callgrind (nops), in
// families of one and several instances, BM_JobsFit (a complexity fit:
// its instances run together, plan/family_fit.h), and BM_JobsKillsItself, which
// raises SIGKILL on its own process when PMUBENCH_JOBS_TEST_KILL is set (a
// worker that dies mid-run).
#include <pmubench/pmubench.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>

#include "tests/runner/fresh_pages.h"

#define PMUBENCH_NOPS(n) asm volatile(".rept " #n "\n\tnop\n\t.endr")

namespace {

using pmubench::testing::FreshPages;

// range(0) fresh pages per iteration: exactly range(0) page faults each.
void BM_JobsPages(pmubench::State& state) {
  const auto per_iteration = static_cast<size_t>(state.range(0));
  FreshPages pages(per_iteration * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(per_iteration);
}
PMU_BENCHMARK(BM_JobsPages)->Arg(1)->Arg(3)->Iterations(16);

// range(0) x 40 nops per iteration, fitted as O(N).
void BM_JobsFit(pmubench::State& state) {
  for (auto _ : state) {
    for (int64_t i = 0; i < state.range(0); ++i) PMUBENCH_NOPS(40);
  }
  state.SetComplexityN(state.range(0));
}
PMU_BENCHMARK(BM_JobsFit)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Iterations(16)
    ->Complexity(benchmark::oN);

void BM_JobsKillsItself(pmubench::State& state) {
  if (std::getenv("PMUBENCH_JOBS_TEST_KILL") != nullptr) std::raise(SIGKILL);
  for (auto _ : state) PMUBENCH_NOPS(10);
}
PMU_BENCHMARK(BM_JobsKillsItself)->Iterations(16);

void BM_JobsNops(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(50);
}
PMU_BENCHMARK(BM_JobsNops)->Iterations(16);

// In the killer's worker (families go round robin: Pages, Nops and
// MoreNops to worker 1, the killer and this to worker 2), after it: lost
// with it.
void BM_JobsAfterKill(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(20);
}
PMU_BENCHMARK(BM_JobsAfterKill)->Iterations(16);

void BM_JobsMoreNops(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(100);
}
PMU_BENCHMARK(BM_JobsMoreNops)->Iterations(16);

}  // namespace
