// The user-space self-read of one perf event through its mmapped
// perf_event_mmap_page, following the seqlock loop documented in
// linux/perf_event.h. Header-only and inline: it sits on the hot path.
//
// The counter and timestamp instructions are template parameters, so tests
// drive the reader with a synthetic page and a fake counter, and production
// code passes RdpmcInstruction / RdtscInstruction.
//
// NOTE: the reader never builds a status; "no value" means "use read(2)"
// (the event is not on a hardware counter now, index == 0, or the kernel
// does not allow user rdpmc, cap_user_rdpmc == 0).
#ifndef PMUBENCH_FRAMEWORK_PERF_MMAP_READER_H_
#define PMUBENCH_FRAMEWORK_PERF_MMAP_READER_H_

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>

#include "framework/perf/counter_math.h"

namespace pmubench::perf {

struct MmapReading {
  uint64_t count = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
};

inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

// Orders the page loads of the seqlock. The kernel updates the page on the
// reader's own CPU, where a compiler barrier suffices (the perf_event.h
// comment uses barrier()); arm64 also gets a load barrier so a writer on
// another CPU (as in the tests) cannot be seen out of order.
inline void ReadBarrier() {
#if defined(__aarch64__)
  asm volatile("dmb ishld" ::: "memory");
#else
  CompilerBarrier();
#endif
}

// Reads hardware counter `index` (the page's index - 1) in user mode.
struct RdpmcInstruction {
  uint64_t operator()(uint32_t counter) const {
#if defined(__x86_64__)
    uint32_t lo, hi;
    asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (static_cast<uint64_t>(hi) << 32) | lo;
#elif defined(__aarch64__)
    // arm64 user access (perf_user_access=1) exposes the cycle counter as
    // index 32 and event counters 0..30; the kernel sets index accordingly.
    uint64_t value;
    if (counter == 31) {
      asm volatile("mrs %0, pmccntr_el0" : "=r"(value));
    } else {
      asm volatile("msr pmselr_el0, %0" ::"r"(uint64_t{counter}));
      asm volatile("isb");
      asm volatile("mrs %0, pmxevcntr_el0" : "=r"(value));
    }
    return value;
#else
    (void)counter;
    return 0;
#endif
  }
};

struct RdtscInstruction {
  uint64_t operator()() const {
#if defined(__x86_64__)
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (static_cast<uint64_t>(hi) << 32) | lo;
#elif defined(__aarch64__)
    uint64_t value;
    asm volatile("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    return 0;
#endif
  }
};

// One seqlock-protected read of `pc`. Returns nullopt when the caller must
// fall back to read(2).
template <typename ReadCounter = RdpmcInstruction,
          typename ReadTimestamp = RdtscInstruction>
inline std::optional<MmapReading> ReadMmapPage(
    const volatile perf_event_mmap_page* pc,
    ReadCounter read_counter = ReadCounter{},
    ReadTimestamp read_timestamp = ReadTimestamp{}) {
  uint32_t seq;
  uint32_t index;
  uint64_t count;
  uint64_t enabled;
  uint64_t running;
  uint64_t cyc = 0;
  uint64_t time_offset = 0;
  uint32_t time_mult = 0;
  uint16_t time_shift = 0;
  bool extend_time;
  bool user_read;
  for (;;) {
    seq = pc->lock;
    ReadBarrier();
    // An odd lock means an update is in progress (the writer increments it
    // before and after): wait instead of reading a half-written page.
    if (seq & 1) continue;
    enabled = pc->time_enabled;
    running = pc->time_running;
    extend_time = pc->cap_user_time && enabled != running;
    if (extend_time) {
      cyc = read_timestamp();
      time_offset = pc->time_offset;
      time_mult = pc->time_mult;
      time_shift = pc->time_shift;
    }
    index = pc->index;
    count = pc->offset;
    user_read = pc->cap_user_rdpmc && index != 0;
    if (user_read) {
      const uint16_t width = pc->pmc_width;
      count += static_cast<uint64_t>(SignExtend(read_counter(index - 1), width));
    }
    ReadBarrier();
    if (pc->lock == seq) break;
  }

  // index == 0: the event is not on a counter now; cap_user_rdpmc == 0: the
  // kernel forbids the instruction. Either way offset alone would miss what
  // accrued since the kernel last updated the page.
  if (!user_read) return std::nullopt;

  if (extend_time) {
    const uint64_t delta =
        TscToPerfTime(cyc, time_shift, time_mult, time_offset);
    enabled += delta;
    // The event is on the PMU (index != 0), so it ran all of that time too.
    running += delta;
  }
  return MmapReading{count, enabled, running};
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_MMAP_READER_H_
