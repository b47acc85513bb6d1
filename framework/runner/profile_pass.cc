#include "framework/runner/profile_pass.h"

#include <poll.h>

#include <atomic>
#include <charconv>
#include <iostream>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/perf/sampler.h"
#include "framework/runner/registration.h"

namespace pmubench {
namespace {

// The sampler of the case being profiled; null outside the profiling pass,
// so measured batches only load a null pointer.
std::atomic<perf::Sampler*> g_armed{nullptr};

uint64_t DefaultPeriod(const perf::ResolvedEvent& event) {
  if (event.type != PERF_TYPE_SOFTWARE) return 100000;
  const bool clock = event.config == PERF_COUNT_SW_CPU_CLOCK ||
                     event.config == PERF_COUNT_SW_TASK_CLOCK;
  return clock ? 100000 : 1;  // the clocks count ns: 10 kHz
}

class DiscardingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
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

const internal::Case* FindCase(const std::string& family) {
  for (const internal::Case* c : internal::RegisteredCases()) {
    if (c->request.name == family) return c;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<ProfileConfig> ParseProfileFlag(std::string_view flag,
                                               const perf::PmuRegistry& pmus) {
  const size_t at = flag.rfind('@');
  ProfileConfig config;
  absl::StatusOr<perf::ResolvedEvent> event =
      perf::ResolveEvent(flag.substr(0, at), pmus);
  if (!event.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--pmubench_profile=", std::string(flag), ": ", event.status().message()));
  }
  config.event = *std::move(event);
  config.period = DefaultPeriod(config.event);
  if (at != std::string_view::npos) {
    const std::string_view digits = flag.substr(at + 1);
    auto [end, ec] = std::from_chars(digits.data(),
                                     digits.data() + digits.size(),
                                     config.period);
    if (ec != std::errc() || end != digits.data() + digits.size() ||
        config.period == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--pmubench_profile=", std::string(flag), ": the period after '@' must be a "
          "positive integer (events per sample), e.g. cpu-clock@10000"));
    }
  }
  return config;
}

namespace internal {

ProfiledBatch::ProfiledBatch(int thread_index) {
  perf::Sampler* sampler = g_armed.load(std::memory_order_acquire);
  if (sampler != nullptr && thread_index == 0) {
    active_ = sampler->Enable().ok();
  }
}

ProfiledBatch::~ProfiledBatch() {
  if (!active_) return;
  if (perf::Sampler* s = g_armed.load(std::memory_order_acquire)) {
    (void)s->Disable();
  }
}

}  // namespace internal

ProfilingReporter::ProfilingReporter(
    std::unique_ptr<benchmark::BenchmarkReporter> inner, ProfileConfig config,
    bool print_to_display, ProfileStore* profiles)
    : inner_(std::move(inner)),
      config_(std::move(config)),
      print_to_display_(print_to_display),
      profiles_(profiles) {}

bool ProfilingReporter::ReportContext(const Context& context) {
  return inner_->ReportContext(context);
}

void ProfilingReporter::Finalize() { inner_->Finalize(); }

void ProfilingReporter::ReportRuns(const std::vector<Run>& report) {
  if (print_to_display_) inner_->ReportRuns(report);
  for (const Run& run : report) ProfileRun(run);
  if (!print_to_display_) inner_->ReportRuns(report);
}

// The whole pass for one run: a fresh sampler, the case's family set to one
// repetition of the measured iteration count, Google Benchmark run again on
// that one instance with its results discarded.
void ProfilingReporter::ProfileRun(const Run& run) {
  const std::string name = run.run_name.str();
  if (run.run_type != Run::RT_Iteration || run.error_occurred ||
      !done_.insert(name).second) {
    return;
  }
  const internal::Case* pmu_case = FindCase(run.run_name.function_name);
  std::ostream& out = print_to_display_ ? inner_->GetOutputStream() : std::cerr;
  if (pmu_case == nullptr || pmu_case->family == nullptr) return;
  perf::SamplerOptions options;
  options.period = config_.period;
  options.callchain = config_.callchain;
  absl::StatusOr<perf::Sampler> sampler =
      perf::Sampler::Open(config_.event, options);
  if (!sampler.ok()) {
    out << "  profile of " << name << " failed: " << sampler.status().message()
        << "\n";
    return;
  }
  pmu_case->family->Iterations(run.iterations)->Repetitions(1);
  DiscardingReporter discard;
  perf::ProfileBuilder builder;
  auto add = [&builder](const perf::ParsedRecord& r) { builder.Add(r); };
  // Drained while the case runs, so a full ring frees up and the kernel can
  // write its PERF_RECORD_LOST (it does so only once there is room).
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_acquire)) {
      pollfd ready{sampler->fd(), POLLIN, 0};
      poll(&ready, 1, /*timeout_ms=*/2);
      sampler->Drain(add);
    }
  });
  g_armed.store(&*sampler, std::memory_order_release);
  // The instance's name now carries the settings just made (BenchmarkName).
  benchmark::BenchmarkName rerun = run.run_name;
  rerun.iterations = absl::StrCat("iterations:", run.iterations);
  rerun.repetitions = "repeats:1";
  benchmark::RunSpecifiedBenchmarks(&discard,
                                    "^" + RegexEscape(rerun.str()) + "$");
  g_armed.store(nullptr, std::memory_order_release);
  stop.store(true, std::memory_order_release);
  reader.join();
  sampler->Drain(add);
  perf::Profile profile = builder.Finish(sampler->tally(), config_.top);
  for (const auto& [stack, n] : profile.folded) {
    folded_[absl::StrCat(name, ";", stack)] += n;
  }
  PrintProfile(out, config_, profile);
  profiles_->Add(name, {absl::StrCat(config_.event.spec, "@", config_.period),
                       std::move(profile)});
}

void PrintProfile(std::ostream& out, const ProfileConfig& config,
                  const perf::Profile& profile) {
  out << absl::StrFormat("  profile %s@%d: %d samples of %d events",
                         config.event.spec, config.period, profile.samples,
                         profile.period_sum);
  if (profile.tally.lost_samples != 0) {
    out << absl::StrFormat(", %d LOST (ring buffer full)",
                           profile.tally.lost_samples);
  }
  if (profile.tally.throttles != 0) {
    out << absl::StrFormat(", throttled %d times (raise the period)",
                           profile.tally.throttles);
  }
  out << "\n";
  for (const perf::FunctionSamples& f : profile.top) {
    out << absl::StrFormat("    %6.2f%% %8d  %s\n", 100 * f.share, f.samples,
                           f.symbol);
  }
}

}  // namespace pmubench
