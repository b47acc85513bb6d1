#include "framework/runner/session/session.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "framework/perf/events/pmu.h"
#include "framework/runner/measure/fresh_heap.h"
#include "framework/runner/measure/simulation_session.h"
#include "framework/runner/plan/case_registry.h"
#include "framework/runner/session/probe.h"
#include "framework/runner/simulate/callgrind.h"
#include "framework/runner/simulate/simulator_reset.h"

namespace pmubench {
namespace {

using internal::EventSet;
using internal::Plan;
using internal::SetProbe;

// Probing a set can shorten it (events the PMU lacks), which needs a new
// probe; each round drops at least one event, so few rounds settle.
constexpr int kMaxProbeRounds = 4;

struct SessionState {
  std::mutex mu;
  bool prepared = false;
  // Every set ever planned, never freed: thread groups point at them.
  std::vector<std::unique_ptr<EventSet>> sets;
  // Per registered case: what it counts now (null: nothing).
  std::vector<const EventSet*> case_sets;
  // Per registered case: its set's groups when the set was split (they take
  // turns on each batch); empty when it counts as one group.
  std::vector<std::vector<const EventSet*>> case_turns;
};

SessionState& Session() {
  static auto* session = new SessionState();
  return *session;
}

const EventSet* Intern(SessionState& session, const EventSet& set) {
  for (const auto& known : session.sets) {
    if (known->key == set.key && known->cpus == set.cpus) return known.get();
  }
  session.sets.push_back(std::make_unique<EventSet>(set));
  return session.sets.back().get();
}

// Probes every set that will run and is not probed yet, revising the plan
// until nothing changes. `latest[s]` ends as the last probe of set s.
absl::Status ProbeUntilSettled(Plan& plan,
                               std::vector<std::optional<SetProbe>>& latest) {
  latest.assign(plan.sets.size(), std::nullopt);
  for (int round = 0; round < kMaxProbeRounds; ++round) {
    std::vector<std::optional<SetProbe>> probes(plan.sets.size());
    for (size_t s = 0; s < plan.sets.size(); ++s) {
      if (!plan.sets[s].will_run || plan.sets[s].probed) continue;
      probes[s] = internal::ProbeSet(plan.sets[s].set);
      latest[s] = probes[s];
    }
    absl::StatusOr<bool> changed = internal::ApplyProbes(plan, probes);
    if (!changed.ok()) return changed.status();
    if (!*changed) return absl::OkStatus();
  }
  return absl::InternalError("the event sets did not settle after probing");
}

internal::RunFacts Describe(const Plan& plan,
                            const std::vector<std::optional<SetProbe>>& probes,
                            const std::vector<internal::CaseRequest>& cases,
                            const perf::PmuRegistry& pmus) {
  internal::RunFacts facts;
  facts.pmus = pmus.Names();
  // One option for every set (RunOptions::multiplex).
  facts.pinned = plan.sets.empty() || plan.sets.front().set.options.pinned;
  for (size_t s = 0; s < plan.sets.size(); ++s) {
    const internal::PlannedSet& set = plan.sets[s];
    if (!set.will_run || !probes[s].has_value() || !probes[s]->status.ok()) {
      continue;
    }
    facts.sets.push_back(internal::DescribeSet(set.set, *probes[s]));
    if (set.groups.empty()) continue;
    // What a split set derives: what its groups derive, each alone.
    internal::SetFacts& split = facts.sets.back();
    split.derived.clear();
    for (const EventSet& group : set.groups) {
      split.groups.push_back(group.SpecList());
      for (const internal::DerivedMetric& d : group.derived) {
        split.derived.push_back(d.name);
      }
    }
  }
  facts.case_files = internal::CaseFiles(cases);
  facts.notices = plan.notices;
  if (std::string read = internal::ReadFallbackNotice(facts); !read.empty()) {
    facts.notices.push_back(std::move(read));
  }
  return facts;
}

// Under callgrind: every case counts the simulated events (or nothing,
// Each counting case's fields in its set's order (events, then derived
// metrics): the console's column order. The first case of a name decides.
void AddCaseFields(const std::vector<internal::CaseRequest>& cases,
                   const SessionState& session, SessionInfo& info) {
  for (size_t i = 0; i < cases.size(); ++i) {
    const EventSet* set = session.case_sets[i];
    if (set == nullptr || info.fields_by_case.contains(cases[i].name)) {
      continue;
    }
    std::vector<std::string>& fields = info.fields_by_case[cases[i].name];
    for (const perf::ResolvedEvent& e : set->events) fields.push_back(e.spec);
    for (const internal::DerivedMetric& d : set->derived) {
      fields.push_back(d.name);
    }
  }
}

// with --counters=none); no PMU is planned or opened.
absl::StatusOr<SessionInfo> PrepareSimulation(SessionState& session,
                                              const RunOptions& options) {
  absl::StatusOr<const internal::SimulationSession*> sim =
      internal::StartSimulation(options.counters, options.simulate);
  if (!sim.ok()) return sim.status();
  const std::vector<internal::CaseRequest> cases =
      internal::RegisteredRequests();
  session.case_sets.assign(cases.size(), nullptr);
  session.case_turns.assign(cases.size(), {});
  session.prepared = true;

  SessionInfo info;
  internal::SimulationFacts facts{(*sim)->valgrind,
                                  (*sim)->geometry,
                                  {},
                                  (*sim)->iterations,
                                  internal::kPredictorResetAvailable,
                                  internal::kFreshHeapBuilt};
  for (const internal::SimulatedEvent& e : (*sim)->set.events) {
    facts.fields.push_back(e.field());
  }
  for (const internal::SimulatedRatio& r : (*sim)->set.ratios) {
    facts.fields.push_back(r.field());
  }
  for (std::string notice : {internal::SimulatorResetNotice(facts),
                             internal::FreshHeapNotice(facts)}) {
    if (!notice.empty()) info.facts.notices.push_back(std::move(notice));
  }
  info.facts.simulation = std::move(facts);
  info.facts.case_files = internal::CaseFiles(cases);
  for (const internal::CaseRequest& c : cases) {
    if (!c.counters.empty() && options.counters.empty()) {
      info.facts.notices.push_back(
          "pmubench: under callgrind every case counts the simulated events; "
          "the cases' own event lists (PMU_BENCHMARK_WITH_COUNTERS) are not "
          "used");
      break;
    }
  }
  info.notice = absl::StrJoin(info.facts.notices, "\n");
  info.context = internal::ContextPairs(info.facts);
  info.counter_names = internal::CounterNames(info.facts);
  return info;
}

absl::StatusOr<SessionInfo> PrepareLocked(SessionState& session,
                                          RunOptions options) {
  if (internal::Callgrind::Running()) {
    return PrepareSimulation(session, options);
  }
  if (options.simulate.has_value()) {
    return absl::FailedPreconditionError(
        "--pmubench_simulate: this process does not run under callgrind "
        "(pmubench_main starts valgrind itself; a main of your own must "
        "call pmubench::RunMain)");
  }
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  if (!pmus.ok()) {
    return absl::Status(
        pmus.status().code(),
        absl::StrCat("reading PMUs from sysfs: ", pmus.status().message()));
  }
  if (!options.filter.has_value())
    options.filter = benchmark::GetBenchmarkFilter();
  const std::vector<internal::CaseRequest> cases =
      internal::RegisteredRequests();
  absl::StatusOr<Plan> plan = internal::MakePlan(cases, options, *pmus);
  if (!plan.ok()) return plan.status();
  std::vector<std::optional<SetProbe>> probes;
  if (absl::Status s = ProbeUntilSettled(*plan, probes); !s.ok()) return s;

  session.case_sets.assign(cases.size(), nullptr);
  session.case_turns.assign(cases.size(), {});
  for (size_t i = 0; i < cases.size(); ++i) {
    const int s = plan->case_set[i];
    if (s == internal::kNoSet) continue;
    const internal::PlannedSet& planned = plan->sets[s];
    session.case_sets[i] = Intern(session, planned.set);
    for (const EventSet& group : planned.groups) {
      session.case_turns[i].push_back(Intern(session, group));
    }
  }
  session.prepared = true;

  SessionInfo info;
  info.facts = Describe(*plan, probes, cases, *pmus);
  info.notice = absl::StrJoin(info.facts.notices, "\n");
  info.context = internal::ContextPairs(info.facts);
  info.counter_names = internal::CounterNames(info.facts);
  AddCaseFields(cases, session, info);
  return info;
}

}  // namespace

absl::StatusOr<SessionInfo> Prepare(const RunOptions& options) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mu);
  return PrepareLocked(session, options);
}

namespace internal {

absl::StatusOr<const EventSet*> PlannedSetFor(int case_index) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mu);
  if (!session.prepared) {
    absl::StatusOr<SessionInfo> info = PrepareLocked(session, RunOptions{});
    if (!info.ok()) return info.status();
  }
  if (case_index < 0 ||
      case_index >= static_cast<int>(session.case_sets.size())) {
    // Registered after Prepare ran: it counts nothing rather than guess.
    return nullptr;
  }
  return session.case_sets[case_index];
}

const std::vector<const EventSet*>* PlannedTurnsFor(int case_index) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mu);
  if (case_index < 0 ||
      case_index >= static_cast<int>(session.case_turns.size()) ||
      session.case_turns[case_index].empty()) {
    return nullptr;
  }
  return &session.case_turns[case_index];
}

}  // namespace internal
}  // namespace pmubench
