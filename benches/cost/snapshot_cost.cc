// snapshot_cost: how many instructions one CounterGroup::Snapshot retires,
// for groups of 1, 3 and 6 hardware events, through the events' mmap pages
// (user-space counter reads) and through read(2). A separate measuring group
// counts `instructions:u` and then `instructions:uk` around N snapshots, so
// the kernel's share of read(2) is included; an empty loop of N iterations
// measured the same way is subtracted. Instructions, not times: on an
// emulated PMU (scripts/pmu-vm) the counts are exact and times mean nothing.
//
//   scripts/pmu-vm run -- build/arm64/benches/snapshot_cost
//
// Needs a core PMU and perf_event_paranoid <= 1 (the :uk measurement counts
// the kernel). Prints a Markdown table; exit 1 when a group cannot be opened.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"

namespace pmubench::perf {
namespace {

constexpr int kSnapshots = 1000;
// The minimum over rounds drops rounds that took a timer interrupt (the :uk
// count includes the interrupt handler's instructions).
constexpr int kRounds = 25;

absl::StatusOr<ResolvedEvent> ResolveOne(const std::string& spec,
                                         const PmuRegistry& pmus) {
  absl::StatusOr<std::vector<ResolvedEvent>> events =
      ResolveEventList(spec, pmus);
  if (!events.ok()) return events.status();
  return events->at(0);
}

// k events: cycles, then instructions k - 1 times (counts of one event on
// several counters cost the same to read as distinct events).
absl::StatusOr<std::vector<ResolvedEvent>> MeasuredEvents(
    int k, const PmuRegistry& pmus) {
  absl::StatusOr<ResolvedEvent> cycles = ResolveOne("cycles", pmus);
  absl::StatusOr<ResolvedEvent> instructions = ResolveOne("instructions", pmus);
  if (!cycles.ok()) return cycles.status();
  if (!instructions.ok()) return instructions.status();
  if (k == 1) return std::vector<ResolvedEvent>{*instructions};
  std::vector<ResolvedEvent> events(k - 1, *instructions);
  events.insert(events.begin(), *cycles);
  return events;
}

// Instructions `meter` counts around kSnapshots snapshots of `group` (or, with
// group == nullptr, around an empty loop of as many iterations); minimum of
// kRounds rounds.
double MeterLoop(CounterGroup& meter, CounterGroup* group) {
  double best = std::numeric_limits<double>::infinity();
  GroupSnapshot start, stop, snapshot;
  for (int round = 0; round < kRounds; ++round) {
    meter.Snapshot(start);
    for (int i = 0; i < kSnapshots; ++i) {
      if (group != nullptr) group->Snapshot(snapshot);
      asm volatile("" ::: "memory");
    }
    meter.Snapshot(stop);
    best = std::min(best, Delta(start, stop, 1).counts[0]);
  }
  return best;
}

struct Cost {
  double user = 0;
  double user_and_kernel = 0;
  std::string method;
};

absl::StatusOr<Cost> MeasureCost(const std::vector<ResolvedEvent>& events,
                                 bool use_rdpmc, const PmuRegistry& pmus) {
  GroupOptions options;
  options.use_rdpmc = use_rdpmc;
  absl::StatusOr<CounterGroup> group = CounterGroup::Open(events, options);
  if (!group.ok()) return group.status();
  Cost cost;
  cost.method = ReadMethodName(group->events()[0].read_method);
  for (const char* meter_spec : {"instructions:u", "instructions:uk"}) {
    absl::StatusOr<ResolvedEvent> meter_event = ResolveOne(meter_spec, pmus);
    if (!meter_event.ok()) return meter_event.status();
    absl::StatusOr<CounterGroup> meter = CounterGroup::Open({*meter_event}, {});
    if (!meter.ok()) return meter.status();
    const double per_snapshot =
        (MeterLoop(*meter, &*group) - MeterLoop(*meter, nullptr)) / kSnapshots;
    (meter_spec == std::string("instructions:u") ? cost.user
                                                 : cost.user_and_kernel) =
        per_snapshot;
  }
  return cost;
}

int Run() {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  if (!pmus.ok()) {
    std::fprintf(stderr, "snapshot_cost: %s\n",
                 std::string(pmus.status().message()).c_str());
    return 1;
  }
  std::printf(
      "| events | read path | instructions per snapshot (user) | "
      "(user + kernel) | per event (user + kernel) | "
      "per added event | read(2) / mmap |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|\n");
  // The one-event snapshot of each path: what each further event adds is
  // (cost(k) - cost(1)) / (k - 1).
  Cost mmap_one, read_one;
  for (int k : {1, 3, 6}) {
    absl::StatusOr<std::vector<ResolvedEvent>> events =
        MeasuredEvents(k, *pmus);
    absl::StatusOr<Cost> mmap_cost, read_cost;
    if (events.ok()) mmap_cost = MeasureCost(*events, true, *pmus);
    if (events.ok()) read_cost = MeasureCost(*events, false, *pmus);
    for (const absl::StatusOr<Cost>* cost : {&mmap_cost, &read_cost}) {
      if (!events.ok() || !cost->ok()) {
        std::fprintf(
            stderr, "snapshot_cost: %d events: %s\n", k,
            std::string(
                (events.ok() ? cost->status() : events.status()).message())
                .c_str());
        return 1;
      }
    }
    if (k == 1) {
      mmap_one = *mmap_cost;
      read_one = *read_cost;
    }
    const auto added = [k](const Cost& cost, const Cost& one) {
      if (k == 1) return std::string();
      char text[32];
      std::snprintf(text, sizeof text, "%.1f",
                    (cost.user_and_kernel - one.user_and_kernel) / (k - 1));
      return std::string(text);
    };
    const double ratio =
        read_cost->user_and_kernel / mmap_cost->user_and_kernel;
    std::printf("| %d | mmap page (%s) | %.0f | %.0f | %.1f | %s | |\n", k,
                mmap_cost->method.c_str(), mmap_cost->user,
                mmap_cost->user_and_kernel, mmap_cost->user_and_kernel / k,
                added(*mmap_cost, mmap_one).c_str());
    std::printf("| %d | read(2) | %.0f | %.0f | %.1f | %s | %.1fx |\n", k,
                read_cost->user, read_cost->user_and_kernel,
                read_cost->user_and_kernel / k,
                added(*read_cost, read_one).c_str(), ratio);
  }
  return 0;
}

}  // namespace
}  // namespace pmubench::perf

int main() { return pmubench::perf::Run(); }
