// Simulated profiles that cross from a --pmubench_jobs worker to its parent
// (jobs_run.h), rendered: the worker renders each case's profile as a
// serial run would show it, the table under its rows and the fields of its
// JSON object, and hands both to the parent beside the case's runs; the
// parent's ProfilingReporter prints the table and its ProfileJsonReporter
// adds the fields where a profile of their own would go.
//
//   worker:  SimulatedProfileRenderer renderer(config);
//            std::optional<RenderedProfile> p = renderer.Render(run);
//   parent:  AddWorkerProfile(run_name, *p);
//            ... FindWorkerProfile(run_name) in the reporters ...
//
// Only under callgrind: there a profile is of the measured batch itself, so
// the worker that ran the case holds it; a sampled profile re-runs the case
// in the process that reports it.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PROFILE_WORKER_PROFILES_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PROFILE_WORKER_PROFILES_H_

#include <optional>
#include <set>
#include <string>

#include "benchmark/benchmark.h"
#include "framework/runner/profile/profile_pass.h"

namespace pmubench {

struct RenderedProfile {
  std::string console;  // the lines under the case's rows
  std::string json;     // the fields added to its run's JSON object
};

class SimulatedProfileRenderer {
 public:
  // Starts recording allocation sites in every batch, as the parent's
  // ProfilingReporter does in a serial run.
  explicit SimulatedProfileRenderer(ProfileConfig config);

  // The profile of `run`, taken from the case runner and rendered; nullopt
  // for a run that gets none (an aggregate, a failed run, a repetition
  // after the first, a benchmark that is not a pmubench case).
  std::optional<RenderedProfile> Render(
      const benchmark::BenchmarkReporter::Run& run);

 private:
  ProfileConfig config_;
  std::set<std::string> done_;
};

// In the parent: a worker's rendered profile of run `run_name`, kept for the
// reporters; the one kept for a name, or nullptr.
void AddWorkerProfile(const std::string& run_name, RenderedProfile profile);
const RenderedProfile* FindWorkerProfile(const std::string& run_name);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PROFILE_WORKER_PROFILES_H_
