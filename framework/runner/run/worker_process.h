// The worker processes of --pmubench_jobs (jobs_run.h): this binary started
// again (fork(2), execv(2) of /proc/self/exe) with the parent's own command
// line less the flags only the parent acts on (its output files and format,
// --pmubench_jobs, --pmubench_shard*), and PMUBENCH_JOBS_WORKER naming the
// worker's files: FILES.cases (the instances it runs, one name a line, the
// parent writes it), FILES.runs (the runs it reports, run_record.h) and
// FILES.log (its stdout and stderr). Under --pmubench_simulate the worker
// starts its own valgrind, as any run does; a worker ends with its parent
// (PR_SET_PDEATHSIG).
//
//   absl::StatusOr<pid_t> pid = StartWorker(args, files);
//   WorkerEnd end = WaitForWorker(*pid);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_WORKER_PROCESS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_WORKER_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pmubench::internal {

inline constexpr char kWorkerEnv[] = "PMUBENCH_JOBS_WORKER";

// In a worker: the prefix of its files; nullopt in any other run.
std::optional<std::string> WorkerFiles();

// The parent's arguments (argv[1..]) as a worker gets them.
std::vector<std::string> WorkerArgs(const std::vector<std::string>& args);

// Starts a worker on `files` (its .cases written); its pid.
absl::StatusOr<pid_t> StartWorker(const std::vector<std::string>& args,
                                  const std::string& files);

struct WorkerEnd {
  bool ok = false;          // exit status 0
  std::string description;  // "exit status 137", "killed by signal 9 (...)"
};

// Waits for worker `pid` to end.
WorkerEnd WaitForWorker(pid_t pid);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_WORKER_PROCESS_H_
