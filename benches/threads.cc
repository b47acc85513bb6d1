// Threads: what sharing a cache line costs. Each thread increments a
// counter, one increment per iteration, on 1, 2, 4, ... threads (up to the
// machine's CPUs, at most 8). Each thread owns its counter unless said.
//
//   BM_FalseSharing           plain increments (load, add, store) of
//                             per-thread counters packed side by side in one
//                             cache line: the line ping-pongs between cores
//                             although no data is shared.
//   BM_PaddedCounters         the same with each counter on its own line.
//   BM_FalseSharingAtomic     fetch_add (a locked read-modify-write, which
//                             must own the line every time) on the packed
//                             per-thread counters.
//   BM_PaddedAtomic           fetch_add on padded per-thread counters: the
//                             cost of the locked instruction alone.
//   BM_ContendedAtomic        fetch_add on ONE counter shared by all threads:
//                             true sharing, for comparison.
//
// With one thread packed and padded are the same. With threads on separate
// cores, expect on hardware with a PMU: padded cases scale (items_per_second
// grows with threads, cycles per iteration stay flat), while the false-sharing
// cases behave like the contended one: cycles per iteration jump from a few
// to tens or hundreds while instructions stay put (IPC collapses), and
// L1-dcache-load-misses approach 1 per iteration (the other core took the
// line) against ~0 when padded. Plain stores hide part of the cost in the
// store buffer, so BM_FalseSharing suffers less than BM_FalseSharingAtomic.
// Where threads outnumber free cores they time-share instead of running side
// by side, the effect shrinks, and context-switches shows it.
//
// Times are wall-clock (UseRealTime): with threads, CPU time per thread hides
// contention.

#include <pmubench/pmubench.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace pmubench::benches {
namespace {

constexpr int kMaxThreads = 8;
constexpr char kThreadCounters[] =
    "cycles,instructions,L1-dcache-load-misses,context-switches";

// 128 bytes, not 64: Intel's L2 spatial prefetcher fetches cache lines in
// pairs, so neighbours 64 bytes apart still interfere.
constexpr size_t kFalseSharingRange = 128;

// Counters packed side by side: 8 of them share one 64-byte line.
struct alignas(64) PackedCounters {
  std::atomic<uint64_t> value[kMaxThreads];
};
struct alignas(kFalseSharingRange) PaddedCounter {
  std::atomic<uint64_t> value;
};

PackedCounters packed_counters;
PaddedCounter padded_counters[kMaxThreads];
PaddedCounter shared_counter;

// A plain load and store, not a locked read-modify-write: each counter has a
// single writer, so this is race-free and costs what `++x` costs on a
// private variable, except for what the cache line's sharing adds.
inline void Increment(std::atomic<uint64_t>& counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
}

void BM_FalseSharing(pmubench::State& state) {
  std::atomic<uint64_t>& mine = packed_counters.value[state.thread_index()];
  for (auto _ : state) Increment(mine);
  state.SetItemsProcessed(state.iterations());
}

void BM_PaddedCounters(pmubench::State& state) {
  std::atomic<uint64_t>& mine = padded_counters[state.thread_index()].value;
  for (auto _ : state) Increment(mine);
  state.SetItemsProcessed(state.iterations());
}

void BM_FalseSharingAtomic(pmubench::State& state) {
  std::atomic<uint64_t>& mine = packed_counters.value[state.thread_index()];
  for (auto _ : state) mine.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}

void BM_PaddedAtomic(pmubench::State& state) {
  std::atomic<uint64_t>& mine = padded_counters[state.thread_index()].value;
  for (auto _ : state) mine.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}

void BM_ContendedAtomic(pmubench::State& state) {
  std::atomic<uint64_t>& shared = shared_counter.value;
  for (auto _ : state) shared.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}

// 1, 2, 4, ... up to the CPUs this machine has (at least 2, so the sharing
// effect appears even on a single-CPU machine, through time-sharing).
void ThreadCounts(benchmark::internal::Benchmark* b) {
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  b->ThreadRange(1, std::clamp(cpus, 2, kMaxThreads))->UseRealTime();
}

PMU_BENCHMARK_WITH_COUNTERS(BM_FalseSharing, kThreadCounters)
    ->Apply(ThreadCounts);
PMU_BENCHMARK_WITH_COUNTERS(BM_PaddedCounters, kThreadCounters)
    ->Apply(ThreadCounts);
PMU_BENCHMARK_WITH_COUNTERS(BM_FalseSharingAtomic, kThreadCounters)
    ->Apply(ThreadCounts);
PMU_BENCHMARK_WITH_COUNTERS(BM_PaddedAtomic, kThreadCounters)
    ->Apply(ThreadCounts);
PMU_BENCHMARK_WITH_COUNTERS(BM_ContendedAtomic, kThreadCounters)
    ->Apply(ThreadCounts);

}  // namespace
}  // namespace pmubench::benches
