// The profiling pass of --pmubench_profile=EVENT[@PERIOD]: after a case's
// measured runs have been reported, the case runs once more, as one batch of
// the measured run's iteration count, with a sampling event on its main
// thread (framework/perf/sampling/sampler.h). Its timings are discarded; the
// measured runs are never touched (no sampling event exists while they run).
//
//   absl::StatusOr<ProfileConfig> config = ParseProfileFlag("cpu-clock@10000");
//   display = std::make_unique<ProfilingReporter>(std::move(display), *config);
//   benchmark::RunSpecifiedBenchmarks(display.get(), file);
//
// The console gets a short table of the top functions under each case;
// --pmubench_profile_out gets folded stacks ("outer;inner count") when
// callchains are on. Only thread 0 of a multi-threaded case is sampled.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_PASS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_PASS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/sampling/profile.h"
#include "framework/runner/profile/alloc_site_names.h"
#include "framework/runner/profile/profile_slowdown.h"
#include "framework/runner/simulate/callgrind.h"
#include "framework/runner/simulate/segment_profile.h"

namespace pmubench {
namespace perf {
class Sampler;
}  // namespace perf
namespace internal {
struct Case;
}  // namespace internal

struct ProfileConfig {
  perf::ResolvedEvent event;
  // Events per sample; 0 under callgrind: every instruction counted.
  uint64_t period = 0;
  bool callchain = false;
  size_t top = 8;  // functions shown per case
};

// "EVENT[@PERIOD]": the event as --counters spells it; PERIOD defaults to
// 100000 for the clocks (ns: 10 kHz), 1 for page faults and other software
// events, 100000 for hardware events.
absl::StatusOr<ProfileConfig> ParseProfileFlag(std::string_view flag,
                                               const perf::PmuRegistry& pmus);

// Profiles by run name, written by the ProfilingReporter, read by the JSON
// reporters (which Google Benchmark calls after the display reporter).
class ProfileStore {
 public:
  struct Entry {
    std::string event;  // "cpu-clock@100000"
    perf::Profile profile;
    // The profiled batch against the measured one; absent for a simulated
    // profile (callgrind: no extra batch) or when either was not timed.
    std::optional<ProfileSlowdown> slowdown;
    // Under callgrind: the row's own steps per function and line
    // (segment_profile.h), the pmubench_profile_*per_iteration fields.
    std::optional<internal::SegmentProfile> per_iteration;
    // The allocation sites of the same batch's loop, per iteration
    // (alloc_site_names.h); absent where allocations are not counted.
    std::optional<std::vector<NamedAllocSite>> alloc_sites;
  };
  void Add(std::string run_name, Entry entry) {
    entries_.emplace_back(std::move(run_name), std::move(entry));
  }
  const Entry* Find(const std::string& run_name) const {
    for (const auto& [name, entry] : entries_) {
      if (name == run_name) return &entry;
    }
    return nullptr;
  }
  const std::vector<std::pair<std::string, Entry>>& entries() const {
    return entries_;
  }

 private:
  std::vector<std::pair<std::string, Entry>> entries_;
};

namespace internal {

// Under callgrind, profiles come from the measured batches themselves: the
// case runner records the self cost per function and line of each case's
// last measured segment (thread 0), and the ProfilingReporter takes it
// instead of re-running the case with a sampler.
void RecordSimulatedProfile(int case_index,
                            std::vector<CallgrindDump::SelfCost> costs);
std::optional<std::vector<CallgrindDump::SelfCost>> TakeSimulatedProfile(
    int case_index);
// The same case's per-iteration profile (SimulatedMeter::TakeSegmentProfile).
void RecordSegmentProfile(int case_index, SegmentProfile profile);
std::optional<SegmentProfile> TakeSegmentProfile(int case_index);

// The registered case of family `family` that a profile can be taken of
// (nullptr: none).
const Case* FindProfiledCase(const std::string& family);

// Around each batch of a case (case runner): during the profiling pass,
// enables a sampler of the calling thread for the batch (thread 0's, which
// the pass opened; each other thread of a ->Threads(N) case opens its own),
// and on thread 0 records the batch's allocation sites (alloc_sites.h);
// otherwise one load.
class ProfiledBatch {
 public:
  explicit ProfiledBatch(int thread_index);
  ~ProfiledBatch();
  ProfiledBatch(const ProfiledBatch&) = delete;
  ProfiledBatch& operator=(const ProfiledBatch&) = delete;

 private:
  perf::Sampler* sampler_ = nullptr;
  bool sites_ = false;
};

}  // namespace internal

// Wraps the display reporter: forwards everything, and profiles each case
// once its runs are measured. Console: the table goes under the case's rows.
// Other formats: the case is profiled before the display sees its runs (so a
// JSON display can carry the profile) and the table goes to stderr.
class ProfilingReporter : public benchmark::BenchmarkReporter {
 public:
  // `profiles` receives each case's profile; it must outlive this reporter.
  ProfilingReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                    ProfileConfig config, bool print_to_display,
                    ProfileStore* profiles);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& report) override;
  void Finalize() override;

  // Folded stacks of every profiled case, each line prefixed with the case.
  const std::map<std::string, uint64_t>& folded() const { return folded_; }

 private:
  void ProfileRun(const Run& run);
  void ProfileSimulatedRun(const std::string& name,
                           const internal::Case& pmu_case, std::ostream& out);

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  ProfileConfig config_;
  bool print_to_display_;
  std::set<std::string> done_;
  std::map<std::string, uint64_t> folded_;
  ProfileStore* profiles_;
  bool unknown_explained_ = false;
};

// The table printed under a case, then the slowdown warning when `slowdown`
// warns.
void PrintProfile(std::ostream& out, const ProfileConfig& config,
                  const perf::Profile& profile,
                  const std::optional<ProfileSlowdown>& slowdown = {});

// Under callgrind: the profile the case runner recorded for `pmu_case`'s
// last batch, taken and printed to `out` as the table under run `name`'s
// rows; its entry (with its per-iteration lines and allocation sites), or
// nullopt when none was recorded (`out` then says so).
std::optional<ProfileStore::Entry> PrintSimulatedProfile(
    std::ostream& out, const std::string& name, const internal::Case& pmu_case,
    const ProfileConfig& config);

// What [unknown] stands for, printed once per process under the first table
// that shows it; "" when `profile`'s table does not.
std::string UnknownSymbolNote(const perf::Profile& profile);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_PASS_H_
