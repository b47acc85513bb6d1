// Which instances each worker of --pmubench_jobs=N runs (run/jobs_run.h).
// Pure. A family (an instance's name up to its first '/') stays in one
// worker: Google Benchmark fits a family's complexity (BigO, RMS) once its
// last instance has run, over the instances the process ran, so a family
// split over two workers would report two wrong fits. Families are then
// spread as shards are (shard.h): round robin in registration order, or by
// cost when `costs` (seconds per instance, run_costs.h) is given, longest
// family first to the least loaded worker.
//
//   std::vector<std::vector<std::string>> parts = SplitJobs(names, 2, costs);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_JOB_SPLIT_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_JOB_SPLIT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmubench::internal {

// The family of instance `name`: its name up to the first '/'.
std::string_view FamilyOf(std::string_view name);

// `jobs` lists (some may be empty), each in registration order; every
// instance of `instances` is in exactly one.
std::vector<std::vector<std::string>> SplitJobs(
    const std::vector<std::string>& instances, int jobs,
    const std::optional<std::map<std::string, double>>& costs);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_JOB_SPLIT_H_
