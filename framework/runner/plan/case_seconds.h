// Each case's whole time in this run: the wall seconds from handing its
// unit to a worker (or, under callgrind, to the process forked to run it)
// to the worker's "done", which under --pmubench_simulate is several times
// what its measured iterations take (its warm-up segment, setup such as
// building inputs, reading callgrind's dumps, valgrind translating code it
// runs for the first time). The --benchmark_out JSON gives it as
// "pmubench_case_seconds" (profile/profile_json.h), and
// --pmubench_shard_costs balances shards by it where a run has it
// (run_costs.h). A unit of several instances (a family kept whole) shares
// its time among them in proportion to their measured time.
//
//   parent:    AddCaseSeconds(run_name, 12.5);
//   reporter:  if (auto s = FindCaseSeconds(run_name)) ... write *s ...
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_SECONDS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_SECONDS_H_

#include <optional>
#include <string>

namespace pmubench::internal {

inline constexpr char kCaseSecondsField[] = "pmubench_case_seconds";

void AddCaseSeconds(const std::string& run_name, double seconds);
std::optional<double> FindCaseSeconds(const std::string& run_name);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_SECONDS_H_
