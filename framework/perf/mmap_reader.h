// The user-space self-read of one perf event through its mmapped
// perf_event_mmap_page, following the seqlock loop documented in
// linux/perf_event.h. Header-only and inline: it sits on the hot path.
//
// The counter and timestamp instructions are template parameters, so tests
// drive the reader with a synthetic page and a fake counter, and production
// code passes RdpmcInstruction / RdtscInstruction.
//
// NOTE: the reader never builds a status; "no value" means "use read(2)"
// (the event is not on a hardware counter now, index == 0; the kernel does
// not allow user reads, cap_user_rdpmc == 0; or the times cannot be brought
// up to date, cap_user_time == 0 while enabled != running).
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

// The page's time fields, copied inside the seqlock (cap_user_time).
struct PageClock {
  uint64_t cyc = 0;  // the timestamp counter at the read
  uint64_t time_offset = 0;
  uint32_t time_mult = 0;
  uint16_t time_shift = 0;
  bool short_cycles = false;  // cap_user_time_short: the counter is narrow
  uint64_t time_cycles = 0;
  uint64_t time_mask = 0;
};

// Nanoseconds since the page's times were written, as the
// perf_event_mmap_page comment computes them:
//   if (cap_user_time_short)
//     cyc = time_cycles + ((cyc - time_cycles) & time_mask);
//   delta = time_offset + (cyc >> shift) * mult + ((rem * mult) >> shift);
// (arm64 sets cap_user_time_short: its counter is narrower than 64 bits.)
inline uint64_t ElapsedSincePageUpdate(const PageClock& c) {
  uint64_t cyc = c.cyc;
  if (c.short_cycles) cyc = c.time_cycles + ((cyc - c.time_cycles) & c.time_mask);
  return TscToPerfTime(cyc, c.time_shift, c.time_mult, c.time_offset);
}

// One seqlock-protected read of `pc`. Returns nullopt when the caller must
// fall back to read(2): the event is not on a counter now (index 0), the
// kernel forbids user reads (cap_user_rdpmc 0), or `with_times` wants times
// that the page cannot bring up to date (cap_user_time 0 while enabled !=
// running: a fresh count with stale times would scale wrongly).
//
// With `with_times` and cap_user_time the times are extended to the moment
// of the read, also when enabled == running, so that two readings delimit
// the same window for counts and for times: a segment in which the event
// starts being multiplexed then scales by its own enabled/running. Without
// `with_times` (group members, whose times the caller ignores) no
// timestamp is read and the times are the page's.
template <typename ReadCounter = RdpmcInstruction,
          typename ReadTimestamp = RdtscInstruction>
inline std::optional<MmapReading> ReadMmapPage(
    const volatile perf_event_mmap_page* pc,
    ReadCounter read_counter = ReadCounter{},
    ReadTimestamp read_timestamp = ReadTimestamp{}, bool with_times = true) {
  uint32_t seq;
  MmapReading r;
  PageClock clock;
  bool extend_time;
  bool user_read;
  for (;;) {
    seq = pc->lock;
    ReadBarrier();
    // An odd lock means an update is in progress (the writer increments it
    // before and after): wait instead of reading a half-written page.
    if (seq & 1) continue;
    r.time_enabled = pc->time_enabled;
    r.time_running = pc->time_running;
    extend_time = with_times && pc->cap_user_time;
    if (extend_time) {
      clock.cyc = read_timestamp();
      clock.time_offset = pc->time_offset;
      clock.time_mult = pc->time_mult;
      clock.time_shift = pc->time_shift;
      clock.short_cycles = pc->cap_user_time_short;
      clock.time_cycles = pc->time_cycles;
      clock.time_mask = pc->time_mask;
    }
    const uint32_t index = pc->index;
    r.count = pc->offset;
    user_read = pc->cap_user_rdpmc && index != 0;
    if (user_read) {
      const uint16_t width = pc->pmc_width;
      r.count += static_cast<uint64_t>(SignExtend(read_counter(index - 1), width));
    }
    ReadBarrier();
    if (pc->lock == seq) break;
  }
  // index == 0: the event is not on a counter now; cap_user_rdpmc == 0: the
  // kernel forbids the instruction. Either way offset alone would miss what
  // accrued since the kernel last updated the page.
  if (!user_read) return std::nullopt;
  if (extend_time) {
    const uint64_t delta = ElapsedSincePageUpdate(clock);
    r.time_enabled += delta;
    r.time_running += delta;  // on the PMU (index != 0): it ran all along
  } else if (with_times && r.time_enabled != r.time_running) {
    return std::nullopt;
  }
  return r;
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_MMAP_READER_H_
