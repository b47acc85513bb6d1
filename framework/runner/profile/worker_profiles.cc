#include "framework/runner/profile/worker_profiles.h"

#include <map>
#include <sstream>
#include <utility>

#include "framework/runner/alloc/alloc_sites.h"
#include "framework/runner/profile/profile_json.h"

namespace pmubench {
namespace {

std::map<std::string, RenderedProfile>& WorkerProfiles() {
  static auto* profiles = new std::map<std::string, RenderedProfile>();
  return *profiles;
}

}  // namespace

SimulatedProfileRenderer::SimulatedProfileRenderer(ProfileConfig config)
    : config_(std::move(config)) {
  internal::EnableAllocSites(/*every_batch=*/true);
}

std::optional<RenderedProfile> SimulatedProfileRenderer::Render(
    const benchmark::BenchmarkReporter::Run& run) {
  using Run = benchmark::BenchmarkReporter::Run;
  const std::string name = run.run_name.str();
  if (run.run_type != Run::RT_Iteration || run.error_occurred ||
      !done_.insert(name).second) {
    return std::nullopt;
  }
  const internal::Case* pmu_case =
      internal::FindProfiledCase(run.run_name.function_name);
  if (pmu_case == nullptr) return std::nullopt;
  std::ostringstream console;
  const std::optional<ProfileStore::Entry> entry =
      PrintSimulatedProfile(console, name, *pmu_case, config_);
  return RenderedProfile{std::move(console).str(),
                         entry.has_value() ? ProfileJsonFields(*entry) : ""};
}

void AddWorkerProfile(const std::string& run_name, RenderedProfile profile) {
  WorkerProfiles()[run_name] = std::move(profile);
}

const RenderedProfile* FindWorkerProfile(const std::string& run_name) {
  const auto& profiles = WorkerProfiles();
  auto it = profiles.find(run_name);
  return it == profiles.end() ? nullptr : &it->second;
}

}  // namespace pmubench
