#include "framework/runner/registration.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "framework/runner/batch_meter.h"
#include "framework/runner/profile_pass.h"
#include "framework/runner/session.h"
#include "framework/runner/state.h"
#include "framework/runner/thread_groups.h"

namespace pmubench::internal {
namespace {

// Function-local so registration from static initializers in any translation
// unit finds it constructed.
std::vector<std::unique_ptr<Case>>& CaseRegistry() {
  static auto* cases = new std::vector<std::unique_ptr<Case>>();
  return *cases;
}

}  // namespace

std::vector<Case*> RegisteredCases() {
  std::vector<Case*> cases;
  for (const auto& c : CaseRegistry()) cases.push_back(c.get());
  return cases;
}

benchmark::internal::Benchmark* RegisterCase(const char* name, CaseBody body,
                                             const char* counters,
                                             const char* file) {
  auto owned = std::make_unique<Case>();
  owned->name = name;
  owned->file = file == nullptr ? "" : file;
  owned->body = std::move(body);
  owned->requested_counters = counters == nullptr ? "" : counters;
  Case* pmu_case = owned.get();
  CaseRegistry().push_back(std::move(owned));
  pmu_case->family = benchmark::RegisterBenchmark(
      name, [pmu_case](benchmark::State& gb_state) {
        ProfiledBatch profiled(gb_state.thread_index());
        CaseRunner::RunBatch(gb_state, *pmu_case);
      });
  return pmu_case->family;
}

void CaseRunner::RunBatch(benchmark::State& gb_state, const Case& pmu_case) {
  if (absl::Status prepared = EnsurePrepared(); !prepared.ok()) {
    const std::string message = "pmubench: " + std::string(prepared.message());
    gb_state.SkipWithError(message.c_str());
    return;
  }
  ThreadGroup* group = nullptr;
  if (pmu_case.events != nullptr) {
    absl::StatusOr<ThreadGroup*> found = ThreadGroupFor(*pmu_case.events);
    if (!found.ok()) {
      const std::string message = "pmubench: cannot open counters on thread " +
                                  std::to_string(gb_state.thread_index()) +
                                  ": " + std::string(found.status().message());
      gb_state.SkipWithError(message.c_str());
      return;
    }
    group = *found;
  }
  if (group == nullptr) {
    State state(gb_state, nullptr);
    pmu_case.body(state);
    state.FinishBatch();  // a loop left by `break` after SkipWithError
    return;
  }
  BatchMeter meter(*group);
  State state(gb_state, &meter);
  pmu_case.body(state);
  state.FinishBatch();
  meter.Report(gb_state);
}

}  // namespace pmubench::internal
