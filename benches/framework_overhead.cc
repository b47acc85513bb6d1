// What pmubench itself costs, against plain Google Benchmark in one binary.
//
//   BM_Overhead_<Loop>_Plain     BENCHMARK, benchmark::State
//   BM_Overhead_<Loop>_Counted   PMU_BENCHMARK counting software events
//                                (task-clock,page-faults,context-switches:
//                                they exist on every Linux machine)
//   BM_Overhead_<Loop>_Off       PMU_BENCHMARK with counting off
//
// Empty and Tiny loops run large batches: the per-iteration time of Counted
// and Off should equal Plain's (the loop is the same countdown; the
// snapshots happen once per batch). Batch1 runs one-iteration batches, so its
// time is the per-batch cost: Counted - Plain is what the two snapshots (and
// the bookkeeping around them) add; compare it with two snapshots of the same
// group in BM_PerfSnapshot_Read/3 (benches/perf_snapshot.cc). The "min"
// statistic of its repetitions is the cost without noise.
//
// Pause1 pauses and resumes every iteration around work that is not timed:
// the timer stops before the stop snapshot and starts after the start
// snapshot, so Counted should time like Plain (the snapshots, and what
// State adds around them, are outside the timed region), while its counts
// stay exact (the pause pair's own cost is calibrated and subtracted).
//
// --counters overrides the Counted cases' events like every other case's.
#include <pmubench/pmubench.h>

#include <cstdint>
#include <vector>

namespace {

constexpr char kSoftwareEvents[] = "task-clock,page-faults,context-switches";

double Min(const std::vector<double>& v) {
  double m = v.empty() ? 0 : v[0];
  for (double x : v) m = x < m ? x : m;
  return m;
}

// --- empty loop: only the countdown. ClobberMemory (an empty asm statement)
// keeps the compiler from deleting the loop, which it does for a body of `{}`
// under both Google Benchmark and pmubench.
void BM_Overhead_Empty_Plain(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
BENCHMARK(BM_Overhead_Empty_Plain);

void BM_Overhead_Empty_Counted(pmubench::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Empty_Counted, kSoftwareEvents);

void BM_Overhead_Empty_Off(pmubench::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Empty_Off, "none");

// --- tiny loop: a short dependent chain the compiler cannot remove ----------
inline void TinyWork(uint64_t& x) {
  x = x * 3 + 1;
  benchmark::DoNotOptimize(x);
}

void BM_Overhead_Tiny_Plain(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) TinyWork(x);
}
BENCHMARK(BM_Overhead_Tiny_Plain);

void BM_Overhead_Tiny_Counted(pmubench::State& state) {
  uint64_t x = 1;
  for (auto _ : state) TinyWork(x);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Tiny_Counted, kSoftwareEvents);

void BM_Overhead_Tiny_Off(pmubench::State& state) {
  uint64_t x = 1;
  for (auto _ : state) TinyWork(x);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Tiny_Off, "none");

// --- one-iteration batches: the cost per batch ------------------------------
constexpr int kBatchRepetitions = 200;

void BM_Overhead_Batch1_Plain(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) TinyWork(x);
}
BENCHMARK(BM_Overhead_Batch1_Plain)
    ->Iterations(1)
    ->Repetitions(kBatchRepetitions)
    ->ComputeStatistics("min", Min)
    ->ReportAggregatesOnly(true);

void BM_Overhead_Batch1_Counted(pmubench::State& state) {
  uint64_t x = 1;
  for (auto _ : state) TinyWork(x);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Batch1_Counted, kSoftwareEvents)
    ->Iterations(1)
    ->Repetitions(kBatchRepetitions)
    ->ComputeStatistics("min", Min)
    ->ReportAggregatesOnly(true);

void BM_Overhead_Batch1_Off(pmubench::State& state) {
  uint64_t x = 1;
  for (auto _ : state) TinyWork(x);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Batch1_Off, "none")
    ->Iterations(1)
    ->Repetitions(kBatchRepetitions)
    ->ComputeStatistics("min", Min)
    ->ReportAggregatesOnly(true);

// --- pause and resume every iteration ---------------------------------------
void BM_Overhead_Pause1_Plain(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) {
    state.PauseTiming();
    TinyWork(x);
    state.ResumeTiming();
    TinyWork(x);
  }
}
BENCHMARK(BM_Overhead_Pause1_Plain);

void BM_Overhead_Pause1_Counted(pmubench::State& state) {
  uint64_t x = 1;
  for (auto _ : state) {
    state.PauseTiming();
    TinyWork(x);
    state.ResumeTiming();
    TinyWork(x);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_Overhead_Pause1_Counted, kSoftwareEvents);

}  // namespace
