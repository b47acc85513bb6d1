// Under callgrind a --pmubench_jobs worker runs each of its units in a
// child process forked from it (fork(2)), which ends when the unit is
// done.
//
// Why: some counts follow where the case's data lands. Abseil's tables mix
// the address of their control bytes into every probe (PerTableSalt in
// absl/container/internal/raw_hash_set.h: ctrl >> 12), and each batch's
// fresh heap (measure/fresh_heap.h) is a new malloc arena that stays
// mapped, so the arenas and mapped blocks of the batches that ran before a
// case decide where its tables land. In one process that is every case
// before it, which depends on the filter, the shard and the worker the
// case was given. A child starts from its worker's address space as it
// was before any case ran, the same for every unit, so a case's counts
// depend on the case alone: the same in any worker, with any number of
// workers and in any shard (docs/jobs.md).
//
// Natively units run in the worker itself: counters opened by the worker's
// thread count that thread, not a child's.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_UNIT_CHILD_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_UNIT_CHILD_H_

#include <benchmark/benchmark.h>

#include <cstddef>

namespace pmubench::internal {

// Runs the benchmarks Google Benchmark's filter now selects, reporting to
// `display`, in a child process; returns 1 when some ran, 0 when none
// matched (the worker only tells the two apart). A child killed by a
// signal ends the worker by the same signal, as if the worker had run the
// unit: the parent fails the unit by name (jobs_run.h). Where fork(2)
// fails, runs them here.
size_t RunUnitInChild(benchmark::BenchmarkReporter* display);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_UNIT_CHILD_H_
