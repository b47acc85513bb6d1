// The user-space snapshot of a pinned group through its events' mmap pages,
// cut to what such a group needs: each page's count under the page's own
// seqlock (lock, index, offset, pmc_width, the counter, lock again; the
// perf_event_mmap_page comment in linux/perf_event.h), and the leader's
// enabled and running times as the page holds them, with no timestamp read.
//
// Why a pinned group may skip the time extension: the kernel never rotates
// a pinned group off the PMU; when it cannot have its counters it goes to
// error state and stays there (kernel/events/core.c, merge_sched_in), where
// every page's index is 0. A counted thread's times only move while it runs
// (the task context's clock). So while the leader's page says
// time_enabled == time_running the group has run all the time it was
// enabled, each page's nonzero index (read under that page's lock) shows
// its event is on a counter now, and two such snapshots give equal enabled
// and running deltas: counts that need no scaling, whatever the page's
// times lag behind. A leader with enabled != running returns false, and
// the caller reads with time extension (ReadGroupPages) or read(2).
//
// One seqlock section per page, never one for the group: each page has its
// own lock, and the leader's says nothing about a member's offset.
//
// Unrolled for a group of N events (a template argument), so a snapshot is
// one straight run of loads and counter reads with no loop.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_PINNED_PAGE_READ_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_PINNED_PAGE_READ_H_

#include <linux/perf_event.h>

#include <cstdint>

#include "framework/perf/counting/counter_math.h"
#include "framework/perf/counting/mmap_reader.h"

namespace pmubench::perf {

// A pinned group member's count under its page's seqlock. False: the event
// is not on a counter now (index 0), so read(2) must read the group. The
// page's cap_user_rdpmc is not read: it is fixed for an event's life and
// checked once at open (CounterGroup::ChooseReadMethod), and the kernel
// writes index 0 whenever user reads are not allowed (arm64:
// armv8pmu_user_event_idx; x86: x86_pmu_event_idx).
template <typename ReadCounter = RdpmcInstruction>
[[gnu::always_inline]] inline bool ReadPinnedCount(
    const volatile perf_event_mmap_page* pc, uint64_t& count,
    ReadCounter read_counter = ReadCounter{}) {
  for (;;) {
    const uint32_t seq = pc->lock;
    ReadBarrier();
    // Odd: a writer is mid-update. The kernel's update never is when the
    // reader runs, but a test's preempted writer thread can be.
    if (__builtin_expect(seq & 1, 0)) continue;
    const uint32_t index = pc->index;
    const uint64_t offset = pc->offset;
    uint64_t raw;
    // A torn index only sends the caller to read(2), which is exact.
    if (!ReadCounterAtIndex(read_counter, index, raw)) return false;
    // Loaded after the counter: g++ 12 zero-extends the volatile 16-bit
    // load once more when it lives across the jump table (one `and`).
    const uint16_t width = pc->pmc_width;
    const uint64_t value =
        offset + static_cast<uint64_t>(SignExtend(raw, width));
    ReadBarrier();
    if (__builtin_expect(pc->lock == seq, 1)) {
      count = value;
      return true;
    }
  }
}

// The leader's count and its page's times, under its seqlock. False when
// the page shows the group has not run all the time it was enabled
// (time_enabled != time_running) or the event is off the PMU (index 0).
template <typename ReadCounter = RdpmcInstruction>
[[gnu::always_inline]] inline bool ReadPinnedLeader(
    const volatile perf_event_mmap_page* pc, uint64_t& count,
    uint64_t& time_enabled, uint64_t& time_running,
    ReadCounter read_counter = ReadCounter{}) {
  for (;;) {
    const uint32_t seq = pc->lock;
    ReadBarrier();
    if (__builtin_expect(seq & 1, 0)) continue;  // as in ReadPinnedCount
    const uint64_t enabled = pc->time_enabled;
    const uint64_t running = pc->time_running;
    if (__builtin_expect(enabled != running, 0)) return false;
    const uint32_t index = pc->index;
    const uint64_t offset = pc->offset;
    uint64_t raw;
    if (!ReadCounterAtIndex(read_counter, index, raw)) return false;
    const uint16_t width = pc->pmc_width;  // as in ReadPinnedCount
    const uint64_t value =
        offset + static_cast<uint64_t>(SignExtend(raw, width));
    ReadBarrier();
    if (__builtin_expect(pc->lock == seq, 1)) {
      count = value;
      time_enabled = enabled;
      time_running = running;
      return true;
    }
  }
}

// Members I..N-1, each in its own seqlock section, unrolled.
template <int I, int N, typename ReadCounter>
[[gnu::always_inline]] inline bool ReadPinnedMembers(
    const perf_event_mmap_page* const* pages, uint64_t* counts,
    const ReadCounter& read_counter) {
  if constexpr (I >= N) {
    return true;
  } else {
    return ReadPinnedCount(pages[I], counts[I], read_counter) &&
           ReadPinnedMembers<I + 1, N>(pages, counts, read_counter);
  }
}

// Every count of a pinned group of N events, and the leader's times. False:
// read the group another way (see the top of this file).
template <int N, typename ReadCounter = RdpmcInstruction>
[[gnu::always_inline]] inline bool ReadPinnedGroupPages(
    const perf_event_mmap_page* const* pages, uint64_t* counts,
    uint64_t& time_enabled, uint64_t& time_running,
    ReadCounter read_counter = ReadCounter{}) {
  static_assert(N >= 1);
  return ReadPinnedLeader(pages[0], counts[0], time_enabled, time_running,
                          read_counter) &&
         ReadPinnedMembers<1, N>(pages, counts, read_counter);
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_PINNED_PAGE_READ_H_
