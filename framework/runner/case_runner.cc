#include "framework/runner/case_runner.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/runner/batch_meter.h"
#include "framework/runner/profile_pass.h"
#include "framework/runner/session.h"
#include "framework/runner/simulated_meter.h"
#include "framework/runner/simulation_session.h"
#include "framework/runner/state.h"
#include "framework/runner/thread_groups.h"

namespace pmubench::internal {
namespace {

// One BatchTotals per registered case, created on first use.
BatchTotals& TotalsFor(const Case& pmu_case) {
  static std::mutex mu;
  static auto* totals = new std::vector<std::unique_ptr<BatchTotals>>();
  std::lock_guard<std::mutex> lock(mu);
  if (totals->size() <= static_cast<size_t>(pmu_case.index)) {
    totals->resize(pmu_case.index + 1);
  }
  auto& slot = (*totals)[pmu_case.index];
  if (slot == nullptr) slot = std::make_unique<BatchTotals>();
  return *slot;
}

void Fail(benchmark::State& gb_state, const std::string& message) {
  gb_state.SkipWithError(message.c_str());
}

}  // namespace

void CaseRunner::RunSimulatedBatch(benchmark::State& gb_state,
                                   const Case& pmu_case,
                                   const SimulationSession& sim) {
  const std::string& name = pmu_case.request.name;
  if (sim.set.events.empty()) {  // --counters=none
    State state(gb_state, nullptr);
    pmu_case.body(state);
    state.FinishAfterBody(name);
    return;
  }
  SimulatedMeter meter(sim, gb_state.max_iterations);
  State state(gb_state, meter);
  pmu_case.body(state);
  state.FinishAfterBody(name);
  meter.Report(gb_state, state.batch_iterations_ / state.sim_steps_);
  if (gb_state.thread_index() == 0) {
    RecordSimulatedProfile(pmu_case.index, meter.TakeSelfCosts());
  }
}

void CaseRunner::RunBatch(benchmark::State& gb_state, const Case& pmu_case) {
  const std::string& name = pmu_case.request.name;
  absl::StatusOr<const EventSet*> set = PlannedSetFor(pmu_case.index);
  if (!set.ok()) {
    return Fail(gb_state, absl::StrCat("pmubench: ", set.status().message()));
  }
  if (const SimulationSession* sim = ActiveSimulation(); sim != nullptr) {
    return RunSimulatedBatch(gb_state, pmu_case, *sim);
  }
  // Samples only while --pmubench_profile's pass re-runs the case, and
  // only the body: the thread's counter group is open by then.
  std::optional<ProfiledBatch> profiled;
  if (*set == nullptr) {
    profiled.emplace(gb_state.thread_index());
    State state(gb_state, nullptr);
    pmu_case.body(state);
    state.FinishAfterBody(name);
    return;
  }
  absl::StatusOr<ThreadGroup*> group = ThreadGroupFor(**set);
  if (!group.ok()) {
    // Still one arrival of this thread for the batch's derived metrics.
    TotalsFor(pmu_case).Arrive(gb_state.threads(), {});
    return Fail(gb_state, absl::StrCat("pmubench: ", name,
                                       ": cannot open counters on thread ",
                                       gb_state.thread_index(), ": ",
                                       group.status().message()));
  }
  BatchMeter meter(**group);
  profiled.emplace(gb_state.thread_index());
  State state(gb_state, &meter);
  pmu_case.body(state);
  state.FinishAfterBody(name);
  profiled.reset();
  meter.Report(gb_state, TotalsFor(pmu_case));
}

}  // namespace pmubench::internal
