// Threads a case starts itself (a std::thread in its body, a pool made in
// its setup): a batch counts the thread that runs the loop only (natively
// the counters read with rdpmc are that thread's; under callgrind the
// segments are that thread's dumps), so their work is in no count. The
// runner watches each case thread of a perf_event batch for them
// (perf/counting/child_tasks.h) and says so on the row, and once per case
// on stderr. The threads of
// ->Threads(N) are Google Benchmark's, not the case's: each is counted.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STARTED_THREADS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STARTED_THREADS_H_

#include <benchmark/benchmark.h>

#include <string>

namespace pmubench::internal {

// The run field of a row whose case started threads that ran during the
// batch: how many of the row's case threads (1 without ->Threads(N)) did.
inline constexpr char kThreadsNotCountedName[] = "pmubench_threads_not_counted";

// The line said once per case on stderr.
std::string ThreadsNotCountedNotice(const std::string& case_name);

// Marks the row of `gb_state` and, the first time for `case_name` in this
// process, prints the notice to stderr.
void MarkThreadsNotCounted(benchmark::State& gb_state,
                           const std::string& case_name);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STARTED_THREADS_H_
