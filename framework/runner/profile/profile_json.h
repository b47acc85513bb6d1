// ProfileJsonReporter: Google Benchmark's JSON reporter with each profiled
// run's profile (profile_pass.h) added to its object:
//
//   "pmubench_profile": [{"symbol": "Fn()", "samples": 90, "share": 0.9}, ...],
//   "pmubench_profile_lines": [{"symbol": "Fn()", "file": "/src/fn.cc",
//                               "line": 12, "samples": 60, "share": 0.6}, ...],
//   "pmubench_profile_event": "cpu-clock@100000",
//   "pmubench_profile_samples": 100,
//   "pmubench_profile_lost_samples": 0,
//   "pmubench_profile_throttles": 0,
//   "pmubench_profile_real_time_ns": 35.120,
//   "pmubench_profile_slowdown": 1.021
//
// (the profiled batch's real time per iteration, and that over the measured
// run's)
// and, when the slowdown is above kProfileSlowdownWarnRatio
// (profile_slowdown.h):
//
//   "pmubench_profile_slowdown_warning": "the profiled batch ran 15.3x ...",
//   "pmubench_profile_suggested_period": 200000
//
// The timing fields are absent for a simulated (callgrind) profile.
//
// Where heap allocations are counted, the allocation sites of the profiled
// loop, per iteration (alloc_site_names.h; "above" only where the caller is
// the standard library's):
//
//   "pmubench_profile_alloc_sites_per_iteration": [{"symbol": "Grow()",
//       "file": "/src/grow.cc", "line": 12, "allocs": 1, "bytes": 16}, ...]
//
// And where the run measured it, the case's whole time (plan/case_seconds.h):
//
//   "pmubench_case_seconds": 12.500000
//
// The inner reporter writes one run at a time into a private buffer; the
// fields go before the closing brace of that run's object. Runs without a
// profile (aggregates, failed runs, no --pmubench_profile) pass unchanged.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_JSON_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_JSON_H_

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "framework/runner/profile/profile_pass.h"

namespace pmubench {

class ProfileJsonReporter : public benchmark::BenchmarkReporter {
 public:
  // `profiles` (owned by the ProfilingReporter) must outlive this reporter.
  ProfileJsonReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                      const ProfileStore* profiles);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& report) override;
  void Finalize() override;

 private:
  void Flush();
  std::string FieldsOf(const Run& run) const;

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  const ProfileStore* profiles_;
  std::ostringstream buffer_;
};

// The JSON fields above, each line starting with ",\n      ".
std::string ProfileJsonFields(const ProfileStore::Entry& entry);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_JSON_H_
