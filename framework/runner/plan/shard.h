// Which cases one shard of a suite runs (--pmubench_shard=I/N), so N CI
// jobs or processes together run the suite, every case in exactly one of
// them. Pure: the input is the run's benchmark instances as units
// (job_split.h: an instance alone, or a family with a complexity fit whole),
// in registration order as Google Benchmark would run them (after its
// --benchmark_filter), and optionally each instance's cost in a previous run.
//
//   absl::StatusOr<Shard> shard = ParseShard("2/3");
//   ShardSelection picked = SelectShard(units, *shard, costs);
//   std::string filter = ExactNamesFilter(picked.names);
//
// Without costs, unit k (from 0) goes to shard k % N + 1: round robin, so
// neighbouring cases of one family spread over the shards. With costs
// (run_costs.h), shards are balanced as pytest-split balances test
// durations: longest unit first, each to the shard with the least cost so
// far; units the costs do not price are then placed, in order, on the shard
// with the fewest instances. Ties go to the lowest shard, so every shard of
// one suite computes the same partition.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_SHARD_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_SHARD_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/runner/plan/job_split.h"

namespace pmubench::internal {

struct Shard {
  int index = 1;  // 1..count
  int count = 1;
};

// "I/N" with 1 <= I <= N. Errors name --pmubench_shard and the fix.
absl::StatusOr<Shard> ParseShard(std::string_view text);

struct ShardSelection {
  std::vector<std::string> names;  // this shard's instances, unit by unit
  // Instances the costs did not name (placed by count); 0 without costs.
  int uncosted = 0;
};

// This shard's part of `units`. `costs`: seconds per instance name.
ShardSelection SelectShard(
    const std::vector<Unit>& units, Shard shard,
    const std::optional<std::map<std::string, double>>& costs);

// A --benchmark_filter that matches exactly `names` (a POSIX extended regex,
// as Google Benchmark's filter is): "^(A|B)$", regex characters escaped.
std::string ExactNamesFilter(const std::vector<std::string>& names);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_SHARD_H_
