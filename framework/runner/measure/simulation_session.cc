#include "framework/runner/measure/simulation_session.h"

#include <unistd.h>

#include <mutex>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "framework/runner/measure/fresh_heap.h"
#include "framework/runner/measure/simulated_meter.h"

namespace pmubench::internal {
namespace {

std::mutex g_mu;
SimulationSession* g_active = nullptr;

// One dump with collection off: it must be empty. If the user started
// callgrind collecting (without --collect-atstart=no), this thread's
// collection is turned off and the check made again.
absl::StatusOr<CallgrindDump> EmptyDump(Callgrind& callgrind) {
  const std::string label = absl::StrCat("pmubench-", getpid(), "-probe");
  Callgrind::ZeroStats();
  absl::StatusOr<CallgrindDump> dump = callgrind.Dump(label);
  if (!dump.ok() || dump->Total("Ir") == 0) return dump;
  Callgrind::ToggleCollect();
  Callgrind::ZeroStats();
  dump = callgrind.Dump(label);
  if (dump.ok() && dump->Total("Ir") != 0) {
    return absl::FailedPreconditionError(
        "callgrind collects outside the counted regions: start it with "
        "--collect-atstart=no (valgrind --tool=callgrind "
        "--collect-atstart=no BINARY), or use --pmubench_simulate");
  }
  return dump;
}

std::string Geometry(const CallgrindDump& dump) {
  if (dump.i1.empty() && dump.d1.empty() && dump.ll.empty()) return "none";
  return absl::StrCat("I1=", dump.i1, " D1=", dump.d1, " LL=", dump.ll);
}

std::string ValgrindVersion(const CallgrindDump& dump) {
  absl::string_view creator = dump.creator;
  return absl::ConsumePrefix(&creator, "callgrind-")
             ? absl::StrCat("valgrind-", creator)
             : std::string(dump.creator);
}

}  // namespace

absl::StatusOr<const SimulationSession*> StartSimulation(
    std::string_view counters,
    const std::optional<SimulationOptions>& requested) {
  auto session = std::make_unique<SimulationSession>();
  session->callgrind = std::make_unique<Callgrind>(CallgrindOutputBase());
  // Before the first dump: valgrind writes through whatever has the name.
  if (absl::Status s = CheckDumpDirectory(session->callgrind->base());
      !s.ok()) {
    return s;
  }
  absl::StatusOr<CallgrindDump> probe = EmptyDump(*session->callgrind);
  if (!probe.ok()) return probe.status();
  if (requested.has_value() && requested->mode == SimulationMode::kCache &&
      probe->Total("D1mr") < 0) {
    return absl::FailedPreconditionError(
        "--pmubench_simulate=cache, but this callgrind simulates no caches: "
        "start it with --cache-sim=yes --branch-sim=yes and pinned "
        "--I1/--D1/--LL, or let --pmubench_simulate start valgrind");
  }
  absl::StatusOr<SimulatedEventSet> set =
      SelectSimulatedEvents(counters, AvailableSimulatedEvents(probe->events));
  if (!set.ok()) return set.status();
  session->set = *std::move(set);
  session->valgrind = ValgrindVersion(*probe);
  session->geometry = Geometry(*probe);
  session->simulates_misses =
      probe->Total("D1mr") >= 0 || probe->Total("Bcm") >= 0;
  session->iterations = kDefaultSimulatedIterations;
  if (requested.has_value() && requested->iterations > 0) {
    session->iterations = requested->iterations;
  }
  session->layout_check = requested.has_value() && requested->layout_check;
  absl::StatusOr<std::vector<double>> pair =
      SimulatedMeter::CalibratePausePair(*session->callgrind, session->set);
  if (!pair.ok()) return pair.status();
  session->pause_pair = *std::move(pair);
  PrepareFreshHeaps();
  std::lock_guard<std::mutex> lock(g_mu);
  // Never freed: a batch of an earlier run may still point at it.
  g_active = session.release();
  return g_active;
}

const SimulationSession* ActiveSimulation() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_active;
}

}  // namespace pmubench::internal
