// The worker processes of --pmubench_jobs (jobs_run.h): this binary started
// again (fork(2), execv(2) of /proc/self/exe) with the parent's own command
// line less the flags only the parent acts on (its output files and format,
// --pmubench_jobs, --pmubench_shard*), PMUBENCH_JOBS_WORKER naming the
// worker's files: FILES.runs (the runs it reports, run_record.h) and
// FILES.log (its stdout and stderr), and PMUBENCH_JOBS_PIPES="IN,OUT" the
// two pipe(2) ends it inherits: IN brings its units (a unit's instance
// names a line each, then an empty line; end of file: no more work), on OUT
// it writes "done\n" after each unit. Under --pmubench_simulate the worker
// starts its own valgrind, as any run does, which inherits both ends; a
// worker ends with its parent (PR_SET_PDEATHSIG).
//
//   absl::StatusOr<WorkerHandle> worker = StartWorker(args, files);
//   ... write units to worker->to_worker, read worker->from_worker ...
//   WorkerEnd end = WaitForWorker(worker->pid);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_WORKER_PROCESS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_WORKER_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pmubench::internal {

inline constexpr char kWorkerEnv[] = "PMUBENCH_JOBS_WORKER";
inline constexpr char kWorkerPipesEnv[] = "PMUBENCH_JOBS_PIPES";

// In a worker: the prefix of its files; nullopt in any other run.
std::optional<std::string> WorkerFiles();

struct WorkerPipes {
  int in = -1;   // units from the parent
  int out = -1;  // "done" to the parent
};

// In a worker: its pipe ends; nullopt when the variable is missing or bad.
std::optional<WorkerPipes> WorkerPipesFromEnv();

// The parent's arguments (argv[1..]) as a worker gets them.
std::vector<std::string> WorkerArgs(const std::vector<std::string>& args);

struct WorkerHandle {
  pid_t pid = -1;
  int to_worker = -1;    // the parent's end of IN (close-on-exec)
  int from_worker = -1;  // the parent's end of OUT (close-on-exec)
};

// Starts a worker on `files`; its pid and the parent's pipe ends.
absl::StatusOr<WorkerHandle> StartWorker(const std::vector<std::string>& args,
                                         const std::string& files);

struct WorkerEnd {
  bool ok = false;          // exit status 0
  std::string description;  // "exit status 137", "killed by signal 9 (...)"
};

// Starts a worker that is this process forked (fork(2) without exec): it
// runs `work` with its pipe ends, sharing this process's state as it was
// at the fork, and exits with what `work` returns. Its stdout and stderr
// are this process's. Under callgrind the child is in the same valgrind.
absl::StatusOr<WorkerHandle> ForkWorker(
    const std::function<int(WorkerPipes)>& work);

// Waits for worker `pid` to end.
WorkerEnd WaitForWorker(pid_t pid);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_WORKER_PROCESS_H_
