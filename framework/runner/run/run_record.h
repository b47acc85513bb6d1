// Google Benchmark's reported runs as text, and back, so a worker process of
// --pmubench_jobs can hand the parent the very runs its reporters would have
// been given (jobs_run.h). Pure.
//
//   std::string text = EncodeRuns(report);   // one ReportRuns call's runs
//   ... appended to a file, record after record ...
//   std::vector<std::vector<Run>> groups = DecodeRuns(file_text);
//
// Every field a reporter reads is kept, doubles exactly (shortest text that
// reads back to the same value). Pointers are not: `statistics`,
// `complexity_lambda` and `memory_result` come back null (pmubench's own
// reporters and Google Benchmark's console and JSON reporters read none of
// them; pmubench counts allocations itself, so no MemoryManager result
// exists). A record ends with its own end mark: a record cut short (a worker
// killed while writing it) is dropped, never half read.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_RUN_RECORD_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_RUN_RECORD_H_

#include <benchmark/benchmark.h>

#include <string>
#include <string_view>
#include <vector>

namespace pmubench::internal {

using ReportedRun = benchmark::BenchmarkReporter::Run;

// One record: the runs of one ReportRuns call.
std::string EncodeRuns(const std::vector<ReportedRun>& runs);

// The complete records of `text`, in order; what follows the last complete
// record (a record cut short, or text that is not a record) is ignored.
std::vector<std::vector<ReportedRun>> DecodeRuns(std::string_view text);

// A worker's rendered profile of one run (profile/worker_profiles.h), in a
// record of its own, ended the same way.
struct ProfileRecord {
  std::string run_name;
  std::string console;
  std::string json;
};
std::string EncodeProfile(const ProfileRecord& profile);
std::vector<ProfileRecord> DecodeProfiles(std::string_view text);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_RUN_RECORD_H_
