#include "framework/runner/run/shard_run.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/runner/output/progress.h"
#include "framework/runner/plan/family_fit.h"
#include "framework/runner/plan/job_split.h"
#include "framework/runner/plan/run_costs.h"

ABSL_FLAG(std::string, pmubench_shard, "",
          "I/N: run shard I of N, a deterministic part of the cases (after "
          "--benchmark_filter); the N shards together run each case once. "
          "Round robin in registration order, or balanced by "
          "--pmubench_shard_costs. A shard with no case writes an empty "
          "run and exits 0.");
ABSL_FLAG(std::string, pmubench_shard_costs, "",
          "RUN.json: with --pmubench_shard, balance the shards by each "
          "case's time in this previous run (--benchmark_out JSON), longest "
          "first; cases it does not name are placed by count. With "
          "--pmubench_jobs, balances the workers the same way.");

// Google Benchmark 1.7.1 defines its flags as exported globals
// (src/commandlineflags.h, BM_DECLARE_*); benchmark.h does not declare them.
namespace benchmark {
extern std::string FLAGS_benchmark_filter;
}  // namespace benchmark

namespace pmubench {
namespace {

// The costs in the file `path` (relative: as --benchmark_out's is resolved).
absl::StatusOr<std::map<std::string, double>> ReadCosts(
    const std::string& path) {
  std::ifstream in(ResolveOutputPath(path), std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pmubench_shard_costs=", path,
                     ": cannot be read; give the JSON file of a previous run "
                     "(--benchmark_out=FILE --benchmark_out_format=json)"));
  }
  return internal::ParseRunCosts(text.str(), path);
}

// `names` as a one-line JSON list of strings (a multi-line context value
// would spill into the console's header).
std::string JsonList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const std::string& name : names) {
    if (out.size() > 1) out += ", ";
    out += '"';
    for (char c : name) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "]";
}

}  // namespace

absl::StatusOr<std::optional<std::map<std::string, double>>> CostsFlag() {
  const std::string costs = absl::GetFlag(FLAGS_pmubench_shard_costs);
  if (costs.empty()) return std::nullopt;
  absl::StatusOr<std::map<std::string, double>> read = ReadCosts(costs);
  if (!read.ok()) return read.status();
  return *std::move(read);
}

absl::StatusOr<std::optional<ShardRequest>> ShardFlags(bool jobs_given) {
  const std::string shard = absl::GetFlag(FLAGS_pmubench_shard);
  const std::string costs = absl::GetFlag(FLAGS_pmubench_shard_costs);
  if (shard.empty()) {
    if (costs.empty() || jobs_given) return std::nullopt;
    return absl::InvalidArgumentError(
        absl::StrCat("--pmubench_shard_costs=", costs,
                     " balances shards or workers: add --pmubench_shard=I/N or "
                     "--pmubench_jobs=N"));
  }
  absl::StatusOr<internal::Shard> parsed = internal::ParseShard(shard);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::optional<std::map<std::string, double>>> read =
      CostsFlag();
  if (!read.ok()) return read.status();
  return ShardRequest{*parsed, costs, *std::move(read)};
}

ShardCount ApplyShard(const ShardRequest& request, std::ostream& err) {
  const std::vector<std::string> instances = ListSelectedBenchmarks();
  const internal::ShardSelection selection = internal::SelectShard(
      internal::WorkUnits(instances, internal::FamilyMustStayWhole),
      request.shard, request.costs);
  ShardCount count{static_cast<int>(instances.size()),
                   static_cast<int>(selection.names.size())};
  const std::string flag = absl::StrCat(
      "--pmubench_shard=", request.shard.index, "/", request.shard.count);
  if (selection.uncosted > 0) {
    err << "pmubench: --pmubench_shard_costs=" << request.costs_path
        << " does not name " << selection.uncosted << " of the " << count.total
        << " cases; they are placed by count\n";
  }
  if (count.total > 0 && count.selected == 0) {
    err << "pmubench: " << flag << " selects none of the " << count.total
        << " cases (more shards than cases); writing an empty run\n";
  }
  if (count.total > 0) {
    // For joining the shards' files (scripts/merge.py --shards): which
    // shard this is, and the whole suite's instances in registration order.
    benchmark::AddCustomContext("pmubench_shard",
                                flag.substr(flag.find('=') + 1));
    benchmark::AddCustomContext("pmubench_shard_cases", JsonList(instances));
  }
  if (count.selected > 0) {
    benchmark::FLAGS_benchmark_filter =
        internal::ExactNamesFilter(selection.names);
  }
  return count;
}

int WriteEmptyRun(std::string_view program, OutputFile& output_file) {
  if (benchmark::BenchmarkReporter* file = output_file.reporter()) {
    file->ReportContext(benchmark::BenchmarkReporter::Context());
    file->Finalize();
  }
  benchmark::Shutdown();
  absl::StatusOr<bool> written = output_file.Commit(/*allow_empty=*/true);
  if (!written.ok()) {
    std::cerr << program << ": error: " << written.status().message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace pmubench
