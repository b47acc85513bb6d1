#include "framework/runner/profile/profile_pass.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/perf/sampling/sampler.h"
#include "framework/runner/alloc/alloc_sites.h"
#include "framework/runner/alloc/alloc_tally.h"
#include "framework/runner/plan/case_registry.h"
#include "framework/runner/profile/worker_profiles.h"

namespace pmubench {
namespace {

// One case's profiling pass: thread 0's sampler, opened by the pass on the
// thread Google Benchmark runs thread 0 on, and one for each other thread of
// a ->Threads(N) case, opened by that thread for itself (pid 0 samples the
// calling thread, perf_event_open(2); an inherited event would follow the
// threads, but the kernel refuses to mmap an inherited per-thread event).
class ProfileSession {
 public:
  ProfileSession(perf::ResolvedEvent event, perf::SamplerOptions options)
      : event_(std::move(event)), options_(options) {}

  // A sampler of the calling thread, kept until the session ends; null when
  // it cannot open (the first error is kept for the report).
  perf::Sampler* OpenForThisThread() {
    absl::StatusOr<perf::Sampler> s = perf::Sampler::Open(event_, options_);
    std::lock_guard<std::mutex> lock(mu_);
    if (!s.ok()) {
      if (error_.empty()) error_ = std::string(s.status().message());
      return nullptr;
    }
    samplers_.push_back(std::make_unique<perf::Sampler>(*std::move(s)));
    return samplers_.back().get();
  }

  void DrainAll(absl::FunctionRef<void(const perf::ParsedRecord&)> add) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& s : samplers_) s->Drain(add);
  }

  perf::SampleTally Tally() {
    std::lock_guard<std::mutex> lock(mu_);
    perf::SampleTally sum;
    for (const auto& s : samplers_) sum += s->tally();
    return sum;
  }

  std::string error() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }

  perf::Sampler* thread0 = nullptr;

 private:
  const perf::ResolvedEvent event_;
  const perf::SamplerOptions options_;
  std::mutex mu_;
  std::vector<std::unique_ptr<perf::Sampler>> samplers_;
  std::string error_;
};

// The session of the case being profiled; null outside the profiling pass,
// so measured batches only load a null pointer.
std::atomic<ProfileSession*> g_armed{nullptr};

bool IsClock(const perf::ResolvedEvent& event) {
  return event.type == PERF_TYPE_SOFTWARE &&
         (event.config == PERF_COUNT_SW_CPU_CLOCK ||
          event.config == PERF_COUNT_SW_TASK_CLOCK);
}

uint64_t DefaultPeriod(const perf::ResolvedEvent& event) {
  if (event.type != PERF_TYPE_SOFTWARE) return 100000;
  return IsClock(event) ? 100000 : 1;  // the clocks count ns: 10 kHz
}

// Real time per iteration, as Google Benchmark times a batch (the wall
// clock, or the case's manual time); ->Threads(N) runs are adjusted the same
// way for the measured and the profiled batch, so their ratio holds.
double SecondsPerIteration(const benchmark::BenchmarkReporter::Run& run) {
  if (run.iterations <= 0) return 0;
  return run.real_accumulated_time / static_cast<double>(run.iterations);
}

// Discards the profiled batch's runs, keeping its time per iteration.
class BatchTimeReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& report) override {
    for (const Run& run : report) {
      if (run.run_type == Run::RT_Iteration && !run.error_occurred) {
        seconds_per_iteration = SecondsPerIteration(run);
      }
    }
  }
  double seconds_per_iteration = 0;
};

std::string RegexEscape(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

std::mutex g_simulated_mu;
std::map<int, std::vector<internal::CallgrindDump::SelfCost>>&
SimulatedProfiles() {
  static auto* profiles =
      new std::map<int, std::vector<internal::CallgrindDump::SelfCost>>();
  return *profiles;
}

std::map<int, internal::SegmentProfile>& SegmentProfiles() {
  static auto* profiles = new std::map<int, internal::SegmentProfile>();
  return *profiles;
}

perf::Profile SimulatedProfile(
    const std::vector<internal::CallgrindDump::SelfCost>& costs, size_t top) {
  perf::ProfileBuilder builder;
  for (const internal::CallgrindDump::SelfCost& c : costs) {
    builder.AddCount(c.function, c.file, c.line, c.cost);
  }
  return builder.Finish(perf::SampleTally{}, top);
}

// The allocation sites recorded under `key` (a case's index, or the
// profiling pass's batch), named, per iteration; none where allocations are
// not counted.
std::optional<std::vector<NamedAllocSite>> ProfiledSites(int key,
                                                         int64_t iterations) {
  if (!internal::alloc_counting) return std::nullopt;
  std::vector<internal::AllocSiteCount> counts = internal::TakeAllocSites(key);
  const double divisor = static_cast<double>(std::max<int64_t>(1, iterations));
  for (internal::AllocSiteCount& c : counts) {
    c.allocs /= divisor;
    c.bytes /= divisor;
  }
  return NameAllocSites(counts);
}

// The case's family set to one repetition of the measured iteration count,
// Google Benchmark run again on that one instance with `session` armed and a
// reader draining its rings into `builder`. Returns the batch's real time
// per iteration (0 when it was not timed).
double SampleOneBatch(const benchmark::BenchmarkReporter::Run& run,
                      const internal::Case& pmu_case, ProfileSession& session,
                      perf::ProfileBuilder& builder) {
  // The measured batch's size: Google Benchmark reports a ->Threads(N)
  // run's iterations summed over its threads, and runs each thread that many
  // times over.
  const int64_t per_thread = run.iterations / std::max<int64_t>(1, run.threads);
  pmu_case.family->Iterations(per_thread)->Repetitions(1);
  BatchTimeReporter timed;
  auto add = [&builder](const perf::ParsedRecord& r) { builder.Add(r); };
  // Drained while the case runs, so a full ring frees up and the kernel can
  // write its PERF_RECORD_LOST (it does so only once there is room).
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_acquire)) {
      pollfd ready{session.thread0->fd(), POLLIN, 0};
      poll(&ready, 1, /*timeout_ms=*/2);
      session.DrainAll(add);
    }
  });
  g_armed.store(&session, std::memory_order_release);
  // The instance's name now carries the settings just made (BenchmarkName).
  benchmark::BenchmarkName rerun = run.run_name;
  rerun.iterations = absl::StrCat("iterations:", per_thread);
  rerun.repetitions = "repeats:1";
  benchmark::RunSpecifiedBenchmarks(&timed,
                                    "^" + RegexEscape(rerun.str()) + "$");
  g_armed.store(nullptr, std::memory_order_release);
  stop.store(true, std::memory_order_release);
  reader.join();
  session.DrainAll(add);
  return timed.seconds_per_iteration;
}

}  // namespace

absl::StatusOr<ProfileConfig> ParseProfileFlag(std::string_view flag,
                                               const perf::PmuRegistry& pmus) {
  const size_t at = flag.rfind('@');
  ProfileConfig config;
  absl::StatusOr<perf::ResolvedEvent> event =
      perf::ResolveEvent(flag.substr(0, at), pmus);
  if (!event.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pmubench_profile=", std::string(flag), ": ",
                     event.status().message()));
  }
  config.event = *std::move(event);
  config.period = DefaultPeriod(config.event);
  if (at != std::string_view::npos) {
    const std::string_view digits = flag.substr(at + 1);
    auto [end, ec] = std::from_chars(
        digits.data(), digits.data() + digits.size(), config.period);
    if (ec != std::errc() || end != digits.data() + digits.size() ||
        config.period == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--pmubench_profile=", std::string(flag),
          ": the period after '@' must be a "
          "positive integer (events per sample), e.g. cpu-clock@10000"));
    }
  }
  return config;
}

namespace internal {

void RecordSimulatedProfile(int case_index,
                            std::vector<CallgrindDump::SelfCost> costs) {
  std::lock_guard<std::mutex> lock(g_simulated_mu);
  SimulatedProfiles()[case_index] = std::move(costs);
}

std::optional<std::vector<CallgrindDump::SelfCost>> TakeSimulatedProfile(
    int case_index) {
  std::lock_guard<std::mutex> lock(g_simulated_mu);
  auto it = SimulatedProfiles().find(case_index);
  if (it == SimulatedProfiles().end()) return std::nullopt;
  std::vector<CallgrindDump::SelfCost> costs = std::move(it->second);
  SimulatedProfiles().erase(it);
  return costs;
}

void RecordSegmentProfile(int case_index, SegmentProfile profile) {
  std::lock_guard<std::mutex> lock(g_simulated_mu);
  SegmentProfiles()[case_index] = std::move(profile);
}

std::optional<SegmentProfile> TakeSegmentProfile(int case_index) {
  std::lock_guard<std::mutex> lock(g_simulated_mu);
  auto it = SegmentProfiles().find(case_index);
  if (it == SegmentProfiles().end()) return std::nullopt;
  SegmentProfile profile = std::move(it->second);
  SegmentProfiles().erase(it);
  return profile;
}

const Case* FindProfiledCase(const std::string& family) {
  for (const Case* c : RegisteredCases()) {
    if (c->request.name == family && c->family != nullptr) return c;
  }
  return nullptr;
}

ProfiledBatch::ProfiledBatch(int thread_index) {
  ProfileSession* session = g_armed.load(std::memory_order_acquire);
  if (session == nullptr) return;
  sampler_ =
      thread_index == 0 ? session->thread0 : session->OpenForThisThread();
  if (sampler_ != nullptr && !sampler_->Enable().ok()) sampler_ = nullptr;
  if (thread_index == 0 && alloc_counting) {
    AllocSitesBegin();
    sites_ = true;
  }
}

ProfiledBatch::~ProfiledBatch() {
  if (sampler_ != nullptr) (void)sampler_->Disable();
  if (sites_) {
    AllocSitesEnd();
    // Totals: the pass divides them by the batch's iterations.
    RecordAllocSites(kProfiledBatchSites, AllocSitesPerIteration(1.0));
  }
}

}  // namespace internal

ProfilingReporter::ProfilingReporter(
    std::unique_ptr<benchmark::BenchmarkReporter> inner, ProfileConfig config,
    bool print_to_display, ProfileStore* profiles)
    : inner_(std::move(inner)),
      config_(std::move(config)),
      print_to_display_(print_to_display),
      profiles_(profiles) {
  // Under callgrind the profile is of the measured batches themselves.
  internal::EnableAllocSites(config_.period == 0);
}

bool ProfilingReporter::ReportContext(const Context& context) {
  return inner_->ReportContext(context);
}

void ProfilingReporter::Finalize() { inner_->Finalize(); }

void ProfilingReporter::ReportRuns(const std::vector<Run>& report) {
  if (print_to_display_) inner_->ReportRuns(report);
  for (const Run& run : report) ProfileRun(run);
  if (!print_to_display_) inner_->ReportRuns(report);
}

// The whole pass for one run: a fresh sampler, one sampled batch
// (SampleOneBatch), its table, and its time against the measured run's.
void ProfilingReporter::ProfileRun(const Run& run) {
  const std::string name = run.run_name.str();
  if (run.run_type != Run::RT_Iteration || run.error_occurred ||
      !done_.insert(name).second) {
    return;
  }
  std::ostream& out = print_to_display_ ? inner_->GetOutputStream() : std::cerr;
  if (const RenderedProfile* worker = FindWorkerProfile(name)) {
    out << worker->console;  // the case ran in a worker (jobs_run.h)
    return;
  }
  const internal::Case* pmu_case =
      internal::FindProfiledCase(run.run_name.function_name);
  if (pmu_case == nullptr) return;
  if (config_.period == 0) return ProfileSimulatedRun(name, *pmu_case, out);
  perf::SamplerOptions options;
  options.period = config_.period;
  options.callchain = config_.callchain;
  ProfileSession session(config_.event, options);
  session.thread0 = session.OpenForThisThread();
  if (session.thread0 == nullptr) {
    out << "  profile of " << name << " failed: " << session.error() << "\n";
    return;
  }
  perf::ProfileBuilder builder;
  const int64_t threads = std::max<int64_t>(1, run.threads);
  (void)internal::TakeAllocSites(internal::kProfiledBatchSites);
  const double profiled = SampleOneBatch(run, *pmu_case, session, builder);
  std::optional<std::vector<NamedAllocSite>> sites =
      ProfiledSites(internal::kProfiledBatchSites, run.iterations / threads);
  if (const std::string error = session.error(); !error.empty()) {
    out << "  profile of " << name << ": a thread's sampler failed, its "
        << "samples are missing: " << error << "\n";
  }
  perf::Profile profile = builder.Finish(session.Tally(), config_.top);
  for (const auto& [stack, n] : profile.folded) {
    folded_[absl::StrCat(name, ";", stack)] += n;
  }
  const ProfiledBatchTimes times{
      .measured_seconds_per_iteration = SecondsPerIteration(run),
      .profiled_seconds_per_iteration = profiled,
      .iterations = run.iterations / threads,
      .samples = profile.samples / static_cast<uint64_t>(threads)};
  const ProfileSlowdown slowdown =
      CompareProfiledBatch(times, config_.period, IsClock(config_.event));
  PrintProfile(out, config_, profile, slowdown);
  if (const std::string note = UnknownSymbolNote(profile);
      !note.empty() && !unknown_explained_) {
    out << note;
    unknown_explained_ = true;
  }
  profiles_->Add(
      name, {absl::StrCat(config_.event.spec, "@", config_.period),
             std::move(profile), slowdown, std::nullopt, std::move(sites)});
}

// Under callgrind: the measured batch's own costs, no extra run.
void ProfilingReporter::ProfileSimulatedRun(const std::string& name,
                                            const internal::Case& pmu_case,
                                            std::ostream& out) {
  if (std::optional<ProfileStore::Entry> entry =
          PrintSimulatedProfile(out, name, pmu_case, config_)) {
    profiles_->Add(name, *std::move(entry));
  }
}

std::optional<ProfileStore::Entry> PrintSimulatedProfile(
    std::ostream& out, const std::string& name, const internal::Case& pmu_case,
    const ProfileConfig& config) {
  std::optional<std::vector<internal::CallgrindDump::SelfCost>> costs =
      internal::TakeSimulatedProfile(pmu_case.index);
  if (!costs.has_value()) {
    out << "  profile of " << name << ": callgrind recorded none\n";
    return std::nullopt;
  }
  // No slowdown: the profile is of the measured batch itself.
  ProfileStore::Entry entry{"callgrind/instructions/",
                            SimulatedProfile(*costs, config.top), std::nullopt,
                            internal::TakeSegmentProfile(pmu_case.index),
                            ProfiledSites(pmu_case.index, 1)};
  PrintProfile(out, config, entry.profile);
  return entry;
}

void PrintProfile(std::ostream& out, const ProfileConfig& config,
                  const perf::Profile& profile,
                  const std::optional<ProfileSlowdown>& slowdown) {
  if (config.period == 0) {
    out << absl::StrFormat(
        "  profile callgrind/instructions/: %d instructions of the measured "
        "segment, each counted",
        profile.samples);
  } else {
    out << absl::StrFormat("  profile %s@%d: %d samples of %d events",
                           config.event.spec, config.period, profile.samples,
                           profile.period_sum);
  }
  if (profile.tally.lost_samples != 0) {
    out << absl::StrFormat(", %d LOST (ring buffer full)",
                           profile.tally.lost_samples);
  }
  if (profile.tally.throttles != 0) {
    out << absl::StrFormat(", throttled %d times (raise the period)",
                           profile.tally.throttles);
  }
  out << "\n";
  // Under callgrind (period 0) each "sample" is one counted instruction.
  const char* unit = config.period == 0 ? "instruction" : "sample";
  for (const perf::FunctionSamples& f : profile.top) {
    out << absl::StrFormat("    %6.2f%% %8d  %s", 100 * f.share, f.samples,
                           f.symbol);
    if (f.hottest_line != 0) {
      out << absl::StrFormat(
          "  (hottest line %s:%d, %d %s%s)",
          std::filesystem::path(f.hottest_file).filename().string(),
          f.hottest_line, f.hottest_line_samples, unit,
          f.hottest_line_samples == 1 ? "" : "s");
    }
    out << "\n";
  }
  if (slowdown.has_value() && slowdown->warn) {
    out << "  warning: " << SlowdownWarning(*slowdown) << "\n";
  }
}

std::string UnknownSymbolNote(const perf::Profile& profile) {
  for (const perf::FunctionSamples& f : profile.top) {
    if (f.symbol != perf::kUnknownSymbol) continue;
    return absl::StrCat(
        "  note: ", perf::kUnknownSymbol,
        " is code with no symbol pmubench "
        "can read: stripped code (a system library's internal functions are "
        "named once its debug package, e.g. libc6-dbg, is installed), JIT "
        "code, or a module without a symbol table\n");
  }
  return "";
}

}  // namespace pmubench
