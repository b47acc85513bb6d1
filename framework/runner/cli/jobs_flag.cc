#include "framework/runner/cli/jobs_flag.h"

#include <sched.h>

#include <algorithm>
#include <charconv>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pmubench::internal {
namespace {

constexpr int kMaxJobs = 256;

}  // namespace

absl::StatusOr<int> ParseJobsFlag(std::string_view text, bool simulating,
                                  int cpus_allowed) {
  if (text.empty()) return simulating ? std::max(cpus_allowed, 1) : 1;
  int jobs = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, jobs);
  if (ec != std::errc() || ptr != end || jobs < 1 || jobs > kMaxJobs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--pmubench_jobs=", std::string(text),
        ": give the number of worker processes, a whole number from 1 to ",
        kMaxJobs, " (e.g. --pmubench_jobs=", std::max(cpus_allowed, 2),
        " for this machine's CPUs; --pmubench_jobs=1 runs every case in one "
        "process)"));
  }
  return jobs;
}

int CpusAllowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(CPU_COUNT(&set), 1);
}

std::string NativeJobsWarning(int jobs) {
  return absl::StrCat(
      "pmubench: warning: --pmubench_jobs=", jobs,
      " runs cases side by side natively: their times, cycles, cache and "
      "branch misses are perturbed by each other (shared caches, memory "
      "bandwidth, clock frequency); instruction counts stay exact. Run "
      "with --pmubench_jobs=1 for timings, or use --pmubench_simulate");
}

}  // namespace pmubench::internal
