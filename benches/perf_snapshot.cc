// What one snapshot of a counter group costs, by read path and group size:
//   BM_PerfSnapshot_Read/N           read(2) of a group of N software events
//   BM_PerfSnapshot_SyntheticPage/N  ReadMmapPage on N synthetic pages with a
//                                    fake counter: the logic without rdpmc
//   BM_PerfSnapshot_Rdpmc/N          rdpmc through N real pages (hardware
//                                    events: cycles, instructions, then
//                                    branches, ...). Registered only for the
//                                    N whose group this machine opens with
//                                    user-space reads: absent without a
//                                    PMU, N=1,2 on a PMU without branches
// The read_syscalls_per_snapshot counter shows the read path's one syscall
// per snapshot whatever N; tsc_ticks_per_snapshot is the same cost in TSC
// ticks, to compare with the instruction's own cost.
#include <benchmark/benchmark.h>
#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/counting/mmap_reader.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"

namespace pmubench::perf {
namespace {

constexpr int kMaxEvents = 6;
constexpr std::array<const char*, kMaxEvents> kSoftwareEvents = {
    "task-clock",     "page-faults",  "context-switches",
    "cpu-migrations", "minor-faults", "major-faults"};
// cycles and instructions first: every core PMU counts them (arm64's
// architected events 0x11 and 0x08), so N <= 2 runs on any PMU.
constexpr std::array<const char*, kMaxEvents> kHardwareEvents = {
    "cycles",        "instructions",     "branches",
    "branch-misses", "cache-references", "cache-misses"};
constexpr std::array<int, 3> kRdpmcSizes = {1, 2, 6};

absl::StatusOr<CounterGroup> OpenFirst(
    const std::array<const char*, kMaxEvents>& specs, int n,
    const GroupOptions& options) {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  if (!pmus.ok()) return pmus.status();
  std::string list;
  for (int i = 0; i < n; ++i) list += (i ? "," : "") + std::string(specs[i]);
  absl::StatusOr<std::vector<ResolvedEvent>> events =
      ResolveEventList(list, *pmus);
  if (!events.ok()) return events.status();
  return CounterGroup::Open(*events, options);
}

// Runs the snapshot loop and reports syscalls and TSC ticks per snapshot.
void SnapshotLoop(benchmark::State& state, CounterGroup& group) {
  GroupSnapshot snapshot;
  const uint64_t syscalls_before = group.read_syscalls();
  const uint64_t tsc_before = RdtscInstruction{}();
  for (auto _ : state) {
    bool ok = group.Snapshot(snapshot);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(snapshot);
  }
  const uint64_t tsc_after = RdtscInstruction{}();
  state.counters["read_syscalls_per_snapshot"] = benchmark::Counter(
      static_cast<double>(group.read_syscalls() - syscalls_before),
      benchmark::Counter::kAvgIterations);
  state.counters["tsc_ticks_per_snapshot"] =
      benchmark::Counter(static_cast<double>(tsc_after - tsc_before),
                         benchmark::Counter::kAvgIterations);
}

void BM_PerfSnapshot_Read(benchmark::State& state) {
  GroupOptions options;
  options.use_rdpmc = false;
  absl::StatusOr<CounterGroup> group =
      OpenFirst(kSoftwareEvents, static_cast<int>(state.range(0)), options);
  if (!group.ok()) {
    state.SkipWithError(std::string(group.status().message()).c_str());
    return;
  }
  SnapshotLoop(state, *group);
}
BENCHMARK(BM_PerfSnapshot_Read)->Arg(1)->Arg(3)->Arg(6);

void BM_PerfSnapshot_SyntheticPage(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::array<perf_event_mmap_page, kMaxEvents> pages{};
  for (int i = 0; i < n; ++i) {
    pages[i].lock = 2;
    pages[i].index = static_cast<uint32_t>(i + 1);
    pages[i].cap_user_rdpmc = 1;
    pages[i].cap_user_time = 1;
    pages[i].pmc_width = 48;
    pages[i].offset = 1000;
    pages[i].time_enabled = pages[i].time_running = 5000;
  }
  // The fake counter loads a value the compiler cannot fold.
  volatile uint64_t fake_register = 0x0000FFFFFFFFFF00;
  const auto fake_counter = [&](uint32_t) { return uint64_t{fake_register}; };
  const auto fake_timestamp = [] { return uint64_t{0}; };
  GroupSnapshot snapshot;
  const uint64_t tsc_before = RdtscInstruction{}();
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) {
      const std::optional<MmapReading> r =
          ReadMmapPage(&pages[i], fake_counter, fake_timestamp);
      snapshot.counts[i] = r ? r->count : 0;
    }
    benchmark::DoNotOptimize(snapshot);
  }
  const uint64_t tsc_after = RdtscInstruction{}();
  state.counters["tsc_ticks_per_snapshot"] =
      benchmark::Counter(static_cast<double>(tsc_after - tsc_before),
                         benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PerfSnapshot_SyntheticPage)->Arg(1)->Arg(3)->Arg(6);

void BM_PerfSnapshot_Rdpmc(benchmark::State& state) {
  absl::StatusOr<CounterGroup> group =
      OpenFirst(kHardwareEvents, static_cast<int>(state.range(0)), {});
  if (!group.ok()) {  // it opened at registration
    state.SkipWithError(std::string(group.status().message()).c_str());
    return;
  }
  SnapshotLoop(state, *group);
}

// True when the first `n` hardware events open as one group that is read in
// user space: otherwise this machine has nothing for BM_PerfSnapshot_Rdpmc/n
// to measure (no PMU, a PMU without the event, or no user rdpmc).
bool RdpmcGroupOpens(int n) {
  absl::StatusOr<CounterGroup> group = OpenFirst(kHardwareEvents, n, {});
  return group.ok() && group->Health().ok() &&
         group->events()[0].read_method == ReadMethod::kRdpmc;
}

// Registered at static initialization, like BENCHMARK(), but only the sizes
// this machine can run: a case it cannot run is absent, not an ERROR row.
[[maybe_unused]] const bool kRdpmcRegistered = [] {
  benchmark::internal::Benchmark* family = nullptr;
  for (int n : kRdpmcSizes) {
    if (!RdpmcGroupOpens(n)) continue;
    if (family == nullptr) {
      family = benchmark::RegisterBenchmark("BM_PerfSnapshot_Rdpmc",
                                            BM_PerfSnapshot_Rdpmc);
    }
    family->Arg(n);
  }
  return family != nullptr;
}();

}  // namespace
}  // namespace pmubench::perf
