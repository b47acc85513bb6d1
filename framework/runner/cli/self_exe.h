// This process's executable, the path a re-executed run starts again: the
// callgrind backend's valgrind (simulation_options.h) and the
// --pmubench_jobs workers (run/worker_process.h) both run it.
//
//   absl::StatusOr<std::string> exe = SelfExecutable();
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_SELF_EXE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_SELF_EXE_H_

#include <string>

#include "absl/status/statusor.h"

namespace pmubench::internal {

// The target of /proc/self/exe (proc(5)). Natively that is the binary; under
// valgrind too, /proc/self/exe reads as the program valgrind runs, not as
// valgrind. An Internal error names /proc/self/exe and why it did not read.
absl::StatusOr<std::string> SelfExecutable();

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_SELF_EXE_H_
