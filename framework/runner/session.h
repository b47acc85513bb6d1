// The run's counter configuration: which events each registered PMU case
// counts, checked before any benchmark runs, and what the run reports about
// it (the pmubench_* JSON context keys and the console notice).
//
//   absl::StatusOr<pmubench::SessionInfo> info =
//       pmubench::Prepare({.counters = "task-clock,page-faults"});
//   if (!info.ok()) { print info.status().message(); exit 2; }
//
// Prepare resolves every event list (the --counters override, each case's own
// list, the default set), opens each distinct set once on the calling thread
// (that thread's groups are then reused by every batch it runs: Google
// Benchmark runs thread 0 on the main thread) and calibrates its overhead.
// Any spec that is unknown, malformed, missing on this machine or not
// permitted is an error naming the spec and the remedy.
//
// Fallback: where the machine has no hardware PMU, the default set and a
// case's own list that needs one become kSoftwareDefaultEvents, and
// SessionInfo::notice says so in one line. Where this user may not open
// perf events at all (EACCES/EPERM: perf_event_paranoid 3 on Debian kernels,
// a seccomp profile), those cases run without counters and a second notice
// line gives the error with its remedy. An explicit --counters list is never
// replaced: it is an error instead.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SESSION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pmubench {

inline constexpr char kVersion[] = "0.1.0";

struct RunOptions {
  // "" = each case's own list or the default; "none" = counting off;
  // otherwise a comma-separated spec list for every case.
  std::string counters;
  // False forces read(2) for every snapshot (--pmubench_no_rdpmc).
  bool use_rdpmc = true;
};

struct SessionInfo {
  // Empty, or one line per fallback: why some events were replaced by
  // software events, or why some cases run without counters.
  std::string notice;
  // pmubench_* keys for the JSON context (benchmark::AddCustomContext), in
  // a fixed order: pmubench_version, pmubench_pmus, pmubench_events,
  // pmubench_pinned, pmubench_exclude_kernel, pmubench_read_overhead,
  // pmubench_case_files and, when falling back, pmubench_notice.
  // pmubench_case_files is "BM_A=branch_prediction;Base=containers": each
  // registered PMU case's family (its name up to the first '/': the function
  // for PMU_BENCHMARK_CAPTURE, the base class for fixtures) once, mapped to
  // the basename of its source file without extension; "none" without cases.
  // reports/plot.py groups plots by it.
  std::vector<std::pair<std::string, std::string>> context;
  // Distinct event lists in use ("task-clock,page-faults,..."), for the
  // console header; empty when counting is off.
  std::vector<std::string> event_lists;
  // Every run field pmubench writes (events, derived metrics,
  // pmu_running_fraction), in event-set order, each once.
  std::vector<std::string> counter_names;
  // "rdpmc", "read" or "rdpmc+read" over every opened event.
  std::string read_methods;
};

// Decides and checks what every registered PMU case counts. Call it on the
// main thread before benchmark::RunSpecifiedBenchmarks; calling it again
// re-decides (tests do this). Thread-safe against itself.
absl::StatusOr<SessionInfo> Prepare(const RunOptions& options);

namespace internal {

// Prepare with default options unless Prepare already ran (a binary that
// calls RunSpecifiedBenchmarks without pmubench_main).
absl::Status EnsurePrepared();

}  // namespace internal
}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SESSION_H_
