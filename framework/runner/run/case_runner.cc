#include "framework/runner/run/case_runner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/perf/counting/child_tasks.h"
#include "framework/runner/alloc/alloc_fields.h"
#include "framework/runner/measure/batch_meter.h"
#include "framework/runner/measure/fresh_heap.h"
#include "framework/runner/measure/layout_check.h"
#include "framework/runner/measure/simulated_meter.h"
#include "framework/runner/measure/simulation_session.h"
#include "framework/runner/measure/started_threads.h"
#include "framework/runner/measure/state.h"
#include "framework/runner/measure/thread_groups.h"
#include "framework/runner/profile/profile_pass.h"
#include "framework/runner/session/session.h"

namespace pmubench::internal {
namespace {

// One BatchTotals per registered case and turn (a split set's group),
// created on first use.
BatchTotals& TotalsFor(const Case& pmu_case, int turn = 0) {
  static std::mutex mu;
  static auto* totals =
      new std::map<std::pair<int, int>, std::unique_ptr<BatchTotals>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*totals)[{pmu_case.index, turn}];
  if (slot == nullptr) slot = std::make_unique<BatchTotals>();
  return *slot;
}

void Fail(benchmark::State& gb_state, const std::string& message) {
  gb_state.SkipWithError(message.c_str());
}

// A batch of a split set that failed before turn `first` ran: this thread
// still arrives at the later turns' totals (a turn's derived metrics are
// written at the last thread's arrival), and the run fails with `message`.
void FailTurns(benchmark::State& gb_state, const Case& pmu_case, size_t first,
               size_t turns, const std::string& message) {
  for (size_t t = first; t < turns; ++t) {
    TotalsFor(pmu_case, static_cast<int>(t)).Arrive(gb_state.threads(), {});
  }
  Fail(gb_state, message);
}

// Each group of a split set reports its own running fraction, one after
// the other: the run shows the least of them (`least`: so far).
void KeepLeastRunningFraction(benchmark::State& gb_state,
                              std::optional<double>& least) {
  auto it = gb_state.counters.find(kRunningFractionName);
  if (it == gb_state.counters.end()) return;
  least = std::min(least.value_or(it->second.value), it->second.value);
  it->second.value = *least;
}

}  // namespace

void CaseRunner::RunSimulatedBatch(benchmark::State& gb_state,
                                   const Case& pmu_case,
                                   const SimulationSession& sim) {
  const std::string& name = pmu_case.request.name;
  if (sim.set.events.empty()) {  // --counters=none: the heap counts only
    // On a fresh heap too, so that the live bytes' peak does not follow
    // what ran before (fresh_heap.h); the tally is the body's thread's.
    RunOnFreshHeap(
        [&] {
          State state(gb_state, nullptr);
          pmu_case.body(state);
          state.FinishAfterBody(name);
          WriteAllocations(gb_state);
        },
        /*reset_simulator=*/false);
    return;
  }
  // The body on a thread of its own, its heap and stack new
  // (fresh_heap.h); what allocates outside it (the meter's label, reading
  // the dumps) stays on this thread.
  SimulatedMeter meter(sim, gb_state.max_iterations);
  int64_t iterations_per_step = 1;
  AllocPerIteration allocations;  // the body's thread's tally
  bool children_ran = false;  // threads the body started (started_threads.h)
  RunOnFreshHeap(
      [&] {
        perf::ChildTaskWatch watch;
        State state(gb_state, meter);
        pmu_case.body(state);
        state.FinishAfterBody(name);
        iterations_per_step = state.batch_iterations_ / state.sim_steps_;
        allocations =
            SimulatedAllocations(meter.segment_steps(2), iterations_per_step);
        children_ran = watch.ChildrenRan();
      },
      sim.simulates_misses);
  meter.Report(gb_state, iterations_per_step);
  if (children_ran) MarkThreadsNotCounted(gb_state, name);
  if (sim.layout_check) {
    LayoutCheck::Run(gb_state, sim, pmu_case.body, name);
  }
  WriteSimulatedAllocations(gb_state, allocations);
  if (gb_state.thread_index() == 0) {
    RecordSimulatedProfile(pmu_case.index, meter.TakeSelfCosts());
    RecordSegmentProfile(pmu_case.index, meter.TakeSegmentProfile());
    RecordAllocSites(pmu_case.index, std::move(allocations.sites));
  }
}

void CaseRunner::RunTurns(benchmark::State& gb_state, const Case& pmu_case,
                          const std::vector<const EventSet*>& turns) {
  const std::string& name = pmu_case.request.name;
  absl::StatusOr<std::vector<ThreadGroup*>> groups = ThreadTurnGroupsFor(turns);
  if (!groups.ok()) {
    return FailTurns(
        gb_state, pmu_case, 0, turns.size(),
        absl::StrCat("pmubench: ", name, ": cannot open counters on thread ",
                     gb_state.thread_index(), ": ", groups.status().message()));
  }
  std::optional<double> fraction;
  for (size_t t = 0; t < turns.size(); ++t) {
    ThreadGroup& group = *(*groups)[t];
    if (absl::Status on = group.group.Enable(); !on.ok()) {
      return FailTurns(gb_state, pmu_case, t, turns.size(),
                       absl::StrCat("pmubench: ", name, ": group ", t + 1,
                                    " of ", turns.size(), ": ", on.message()));
    }
    BatchMeter meter(group);
    benchmark::UserCounters untimed_counters;
    if (t == 0) {
      // The timed run, as an unsplit set's; only it is profiled.
      ProfiledBatch profiled(gb_state.thread_index());
      State state(gb_state, &meter);
      pmu_case.body(state);
      state.FinishAfterBody(name);
      WriteAllocations(gb_state);
    } else {
      State state(gb_state, &meter, untimed_counters, State::Untimed{});
      pmu_case.body(state);
      state.FinishAfterBody(name);
    }
    meter.Report(gb_state, TotalsFor(pmu_case, static_cast<int>(t)));
    static_cast<void>(group.group.Disable());
    KeepLeastRunningFraction(gb_state, fraction);
  }
}

void CaseRunner::RunMultiplexed(benchmark::State& gb_state,
                                const Case& pmu_case,
                                const std::vector<const EventSet*>& turns) {
  const std::string& name = pmu_case.request.name;
  absl::StatusOr<std::vector<ThreadGroup*>> groups = ThreadTurnGroupsFor(turns);
  absl::Status on = groups.status();
  for (size_t t = 0; on.ok() && t < turns.size(); ++t) {
    on = (*groups)[t]->group.Enable();
  }
  if (!on.ok()) {
    return FailTurns(gb_state, pmu_case, 0, turns.size(),
                     absl::StrCat("pmubench: ", name,
                                  ": cannot count its groups at once on "
                                  "thread ",
                                  gb_state.thread_index(), ": ", on.message()));
  }
  std::vector<std::unique_ptr<BatchMeter>> meters;
  for (ThreadGroup* group : *groups) {
    meters.push_back(std::make_unique<BatchMeter>(*group));
    if (meters.size() > 1) {
      meters[meters.size() - 2]->set_next(meters.back().get());
    }
  }
  {
    ProfiledBatch profiled(gb_state.thread_index());
    State state(gb_state, meters[0].get());
    pmu_case.body(state);
    state.FinishAfterBody(name);
    WriteAllocations(gb_state);
  }
  std::optional<double> fraction;
  for (size_t t = 0; t < meters.size(); ++t) {
    meters[t]->Report(gb_state, TotalsFor(pmu_case, static_cast<int>(t)));
    static_cast<void>((*groups)[t]->group.Disable());
    KeepLeastRunningFraction(gb_state, fraction);
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
  perf::ChildTaskWatch watch;
  RunNativeBatch(gb_state, pmu_case, *set);
  if (watch.ChildrenRan()) MarkThreadsNotCounted(gb_state, name);
}

void CaseRunner::RunNativeBatch(benchmark::State& gb_state,
                                const Case& pmu_case, const EventSet* set) {
  const std::string& name = pmu_case.request.name;
  // Samples only while --pmubench_profile's pass re-runs the case, and
  // only the body: the thread's counter group is open by then.
  std::optional<ProfiledBatch> profiled;
  if (set == nullptr) {
    profiled.emplace(gb_state.thread_index());
    State state(gb_state, nullptr);
    pmu_case.body(state);
    state.FinishAfterBody(name);
    WriteAllocations(gb_state);
    return;
  }
  if (const std::vector<const EventSet*>* turns =
          PlannedTurnsFor(pmu_case.index);
      turns != nullptr) {
    return turns->front()->options.pinned
               ? RunTurns(gb_state, pmu_case, *turns)
               : RunMultiplexed(gb_state, pmu_case, *turns);
  }
  absl::StatusOr<ThreadGroup*> group = ThreadGroupFor(*set);
  if (!group.ok()) {
    // Still one arrival of this thread for the batch's derived metrics.
    TotalsFor(pmu_case).Arrive(gb_state.threads(), {});
    return Fail(
        gb_state,
        absl::StrCat("pmubench: ", name, ": cannot open counters on thread ",
                     gb_state.thread_index(), ": ", group.status().message()));
  }
  BatchMeter meter(**group);
  profiled.emplace(gb_state.thread_index());
  State state(gb_state, &meter);
  pmu_case.body(state);
  state.FinishAfterBody(name);
  profiled.reset();
  WriteAllocations(gb_state);
  meter.Report(gb_state, TotalsFor(pmu_case));
}

}  // namespace pmubench::internal
