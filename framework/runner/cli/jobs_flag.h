// --pmubench_jobs=N: how many worker processes run the cases
// (run/jobs_run.h). Empty (the flag not given): under callgrind the CPUs
// this process may run on (sched_getaffinity(2)), since a simulated case's
// counts do not depend on what runs beside it; natively 1, since times,
// cycles, cache and branch misses do.
//
//   absl::StatusOr<int> jobs = ParseJobsFlag(text, simulating, CpusAllowed());
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_JOBS_FLAG_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_JOBS_FLAG_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pmubench::internal {

// The number of workers: `text` a whole number from 1 to 256, or empty for
// the default above. Anything else is an InvalidArgument error naming
// --pmubench_jobs and the fix.
absl::StatusOr<int> ParseJobsFlag(std::string_view text, bool simulating,
                                  int cpus_allowed);

// The CPUs in this process's affinity mask (sched_getaffinity(2)); 1 when
// it cannot be read.
int CpusAllowed();

// The line said on stderr when N > 1 workers run natively: what running
// cases side by side perturbs, and what stays exact.
std::string NativeJobsWarning(int jobs);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_JOBS_FLAG_H_
