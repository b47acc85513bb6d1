// --pmubench_shard=I/N and --pmubench_shard_costs=RUN.json in a run: the
// flags checked (before any case runs, and before --pmubench_simulate starts
// valgrind), then Google Benchmark's filter narrowed to this shard's
// instances (plan/shard.h decides which), so planning, the progress line and
// the run see only them. The JSON context says which shard ran
// ("pmubench_shard": "I/N") and lists the suite's instances in registration
// order ("pmubench_shard_cases": a JSON list in a string), so the shards' files
// can be joined back into one run in that order (scripts/merge.py --shards).
//
//   absl::StatusOr<std::optional<ShardRequest>> request = ShardFlags(false);
//   ... exit 2 on error ...
//   ShardCount picked = ApplyShard(**request, std::cerr);
//   if (picked.total > 0 && picked.selected == 0) WriteEmptyRun(...);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_SHARD_RUN_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_SHARD_RUN_H_

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "framework/runner/output/output_file.h"
#include "framework/runner/plan/shard.h"

namespace pmubench {

struct ShardRequest {
  internal::Shard shard;
  std::string costs_path;  // "" without --pmubench_shard_costs
  std::optional<std::map<std::string, double>> costs;
};

// The two flags, checked, the costs file read; nullopt without
// --pmubench_shard. Errors (InvalidArgument) name the flag and the fix. A
// costs file without --pmubench_shard is an error unless `jobs_given`
// (--pmubench_jobs balances its workers by it).
absl::StatusOr<std::optional<ShardRequest>> ShardFlags(bool jobs_given);

// The --pmubench_shard_costs file read; nullopt without the flag.
absl::StatusOr<std::optional<std::map<std::string, double>>> CostsFlag();

struct ShardCount {
  int total = 0;     // instances the user's --benchmark_filter selects
  int selected = 0;  // of them, this shard's
};

// Narrows --benchmark_filter to this shard's instances (left as it is when
// it selects none: Google Benchmark then says so). Notes on `err`: the
// instances the costs file does not name (once), an empty shard.
ShardCount ApplyShard(const ShardRequest& request, std::ostream& err);

// A shard with no case: --benchmark_out written as a run of no benchmarks
// (its context, an empty "benchmarks" list). The exit status: 0, or 1 when
// the file could not be written.
int WriteEmptyRun(std::string_view program, OutputFile& output_file);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_SHARD_RUN_H_
