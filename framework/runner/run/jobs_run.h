// --pmubench_jobs=N in a run: the selected instances cut into units
// (plan/job_split.h: an instance, or a family with a complexity fit whole)
// that N worker processes take one at a time, the next as soon as one is
// done (largest first with --pmubench_shard_costs), so no worker idles while
// work is left. Each worker is this binary again (worker_process.h), told
// its next unit over a pipe and saying "done" over another, reporting its
// runs to a private file in a mkdtemp(3) directory (run_record.h). The
// parent reports every run to its own console and --benchmark_out
// reporters in registration order, as one serial run would (only times
// differ), each row as soon as it and every row before it are in, so the
// console (and its progress line) moves while workers run. The parent has
// prepared its session as a serial run does, so the context and header are
// a serial run's.
//
// Why processes and not threads: a case's counts (callgrind's, or the PMU's
// per-thread groups) belong to one process, and Google Benchmark runs one
// case at a time per process. Why exec and not fork after registration:
// under --pmubench_simulate each worker must be its own valgrind process,
// and a worker started like any run needs no state of its parent's.
//
// A worker that ends before reporting its unit (a crash, a signal) fails
// that unit's unreported cases by name (an error row each, saying how the
// worker ended); a new worker takes its place while units are left, every
// other row is kept, and the parent's exit status is 1.
//
// Worker side:
//   if (auto files = WorkerFiles()) display = *PrepareWorker(*files, profile);
//   RunWorkerUnits(display.get());
// Parent side:
//   JobsOutcome out = RunInWorkers(request, display, file_reporter, std::cerr);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_JOBS_RUN_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_JOBS_RUN_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/runner/profile/profile_pass.h"

namespace pmubench {

struct JobsRequest {
  int jobs = 1;
  // Seconds per instance (--pmubench_shard_costs), to balance the workers.
  std::optional<std::map<std::string, double>> costs;
  std::vector<std::string> args;  // this process's argv[1..]
  // The workers are this process forked, not started again (worker_process.h
  // ForkWorker): a run in one process under callgrind, whose one worker runs
  // each unit in a child forked from the same state (unit_child.h). With it,
  // each case's profile under --pmubench_profile.
  bool fork = false;
  std::optional<ProfileConfig> profile;
};

// In a worker: the display reporter, which appends each ReportRuns call's
// runs to FILES.runs; with `profile` (under callgrind), each case's profile
// rendered to FILES.profiles (profile/worker_profiles.h).
absl::StatusOr<std::unique_ptr<benchmark::BenchmarkReporter>> PrepareWorker(
    const std::string& files, std::optional<ProfileConfig> profile);

// In a worker: runs each unit its parent sends (--benchmark_filter narrowed
// to its names) with `display`, and says when each is done. The number of
// instances run.
size_t RunWorkerUnits(benchmark::BenchmarkReporter* display);

struct JobsOutcome {
  size_t ran = 0;  // instances reported; 0: the filter selected none
  int status = 0;  // 0, or 1 when a worker failed some of its cases
};

// The parent: runs the selected instances in request.jobs workers and
// reports them to `display` and `file` (may be null). Says on `err` which
// worker failed, how it ended, which of its cases failed and how its
// output ends.
JobsOutcome RunInWorkers(const JobsRequest& request,
                         benchmark::BenchmarkReporter* display,
                         benchmark::BenchmarkReporter* file, std::ostream& err);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_JOBS_RUN_H_
