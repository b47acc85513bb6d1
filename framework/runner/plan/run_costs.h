// Each benchmark instance's cost in a previous run, read from that run's
// Google Benchmark JSON (--benchmark_out=FILE --benchmark_out_format=json),
// for balancing shards (shard.h, --pmubench_shard_costs). Pure: the input
// is the file's text.
//
// An instance's cost is its whole time in that run where its rows give it
// ("pmubench_case_seconds", case_seconds.h: every run under callgrind and
// every run with workers), else the time its runs took: iterations x
// real_time of each repetition (aggregates skipped); in seconds, keyed by
// run_name (the instance's name, as --benchmark_list_tests prints it).
// Under --pmubench_simulate the measured iterations are a part of a case's
// time only: its warm-up, setup and callgrind's dumps cost as much again
// or more, and unevenly.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_RUN_COSTS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_RUN_COSTS_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pmubench::internal {

// The costs in `json`; `path` names the file in errors. Text that is not a
// JSON object with a "context" object and a non-empty "benchmarks" list is
// an InvalidArgument error naming --pmubench_shard_costs and the fix.
absl::StatusOr<std::map<std::string, double>> ParseRunCosts(
    std::string_view json, std::string_view path);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_RUN_COSTS_H_
