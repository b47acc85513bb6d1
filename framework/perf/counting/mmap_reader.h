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
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_MMAP_READER_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_MMAP_READER_H_

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "framework/perf/counting/counter_math.h"

namespace pmubench::perf {

struct MmapReading {
  uint64_t count = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
};

inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

// Orders the page loads of the seqlock: a compiler barrier, the barrier()
// of the perf_event_mmap_page comment in linux/perf_event.h. The kernel
// writes an event's page only on the CPU the counted thread runs on (or
// while it is switched out, and a context switch orders memory), so the
// reader never races another CPU and the CPU keeps its own loads in order.
// A test writer on another CPU needs more on arm64: the tests pin it to the
// reader's CPU there, as the kernel is (x86-64 keeps loads in order anyway).
inline void ReadBarrier() { CompilerBarrier(); }

#if defined(__aarch64__)
// Reads event counter `counter` (0..30) or, for 31, the cycle counter, each
// with its own `mrs`, as libperf's arm64 read_perf_counter does
// (tools/lib/perf/mmap.c): the indirect form (`msr pmselr_el0; isb; mrs
// pmxevcntr_el0`) needs an isb, a pipeline flush, on every read. The jump
// table is written out in assembly so that every counter costs the same
// instructions (adr, add, br, mrs, b): a compiler's switch may let one case
// fall through, and a group the kernel moves to other counters would then
// change the snapshot's own count, which the runner calibrates once.
[[gnu::always_inline]] inline uint64_t ReadArm64Counter(uint32_t counter) {
  uint64_t value;
  uint64_t scratch;
  asm volatile(
      "adr %1, 1f\n\t"
      "add %1, %1, %w2, uxtw #3\n\t"  // 8 bytes an entry: mrs, b
      "br %1\n"
      "1:\n\t"
      ".irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
      "24,25,26,27,28,29,30\n\t"
      "mrs %0, pmevcntr\\n\\()_el0\n\t"
      "b 2f\n\t"
      ".endr\n\t"
      "mrs %0, pmccntr_el0\n\t"
      "b 2f\n"
      "2:"
      : "=r"(value), "=&r"(scratch)
      : "r"(counter & 31u));
  return value;
}
#endif

#if defined(__aarch64__)
// The counter of page index `index` into `value`, false for an index that
// names no counter: 0 (the event is off the PMU now) and 33..63 (counters
// this reader does not know, such as FEAT_PMUv3_ICNTR's). The index check
// is the jump table's: the index, masked to 0..63, picks an 8-byte slot,
// and slots that name no counter branch to `off_pmu`. So a counter costs
// and, adr, add, br, mrs, b (the same six for every index), with no
// compare on the way, and a torn index can never jump outside the table.
[[gnu::always_inline]] inline bool ReadArm64CounterAt(uint32_t index,
                                                      uint64_t& value) {
  uint64_t out;
  uint64_t slot;
  asm goto(
      "and %w0, %w2, #63\n\t"
      "adr %1, 1f\n\t"
      "add %1, %1, %w0, uxtw #3\n\t"  // 8 bytes a slot
      "br %1\n"
      "1:\n\t"
      "b %l[off_pmu]\n\t"  // index 0
      "nop\n\t"
      ".irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
      "24,25,26,27,28,29,30\n\t"
      "mrs %0, pmevcntr\\n\\()_el0\n\t"  // index n + 1
      "b 2f\n\t"
      ".endr\n\t"
      "mrs %0, pmccntr_el0\n\t"  // index 32: the cycle counter
      "b 2f\n\t"
      ".rept 31\n\t"  // index 33..63
      "b %l[off_pmu]\n\t"
      "nop\n\t"
      ".endr\n"
      "2:"
      : "=&r"(out), "=&r"(slot)
      : "r"(index)
      : "cc"
      : off_pmu);
  value = out;
  return true;
off_pmu:
  return false;
}
#endif

// Reads hardware counter `counter` (the page's index - 1) in user mode.
struct RdpmcInstruction {
  [[gnu::always_inline]] uint64_t operator()(uint32_t counter) const {
#if defined(__x86_64__)
    uint32_t lo, hi;
    asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (static_cast<uint64_t>(hi) << 32) | lo;
#elif defined(__aarch64__)
    // arm64 user access (perf_user_access=1) exposes the cycle counter as
    // index 32 and event counters 0..30; the kernel sets index accordingly.
    return ReadArm64Counter(counter);
#else
    (void)counter;
    return 0;
#endif
  }

#if defined(__aarch64__)
  // The index check folded into the jump table (ReadCounterAtIndex).
  [[gnu::always_inline]] bool AtIndex(uint32_t index, uint64_t& value) const {
    return ReadArm64CounterAt(index, value);
  }
#endif
};

// The counter of page index `index` through `read_counter`: false when the
// index is 0 (the event is not on a counter now). A reader with an AtIndex
// member does the check itself (arm64's jump table); any other is called
// with the counter number, index - 1, as rdpmc takes it.
template <typename ReadCounter>
[[gnu::always_inline]] inline bool ReadCounterAtIndex(
    const ReadCounter& read_counter, uint32_t index, uint64_t& value) {
  if constexpr (requires { read_counter.AtIndex(index, value); }) {
    return read_counter.AtIndex(index, value);
  } else {
    if (__builtin_expect(index == 0, 0)) return false;
    value = read_counter(index - 1);
    return true;
  }
}

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
  if (c.short_cycles)
    cyc = c.time_cycles + ((cyc - c.time_cycles) & c.time_mask);
  return TscToPerfTime(cyc, c.time_shift, c.time_mult, c.time_offset);
}

// One seqlock-protected read of `pc`: its count and its times. Returns
// nullopt when the caller must fall back to read(2): the event is not on a
// counter now (index 0), the kernel forbids user reads (cap_user_rdpmc 0),
// or the page cannot bring its times up to date (cap_user_time 0 while
// enabled != running: a fresh count with stale times would scale wrongly).
//
// With cap_user_time the times are extended to the moment of the read, also
// when enabled == running, so that two readings delimit the same window for
// counts and for times: a segment in which the event starts being
// multiplexed then scales by its own enabled/running. A group member's count
// alone, without times, is ReadPageCount's.
template <typename ReadCounter = RdpmcInstruction,
          typename ReadTimestamp = RdtscInstruction>
[[gnu::always_inline]] inline std::optional<MmapReading> ReadMmapPage(
    const volatile perf_event_mmap_page* pc,
    ReadCounter read_counter = ReadCounter{},
    ReadTimestamp read_timestamp = ReadTimestamp{}) {
  uint32_t seq;
  MmapReading r;
  uint64_t elapsed = 0;  // ns since the page's times were written
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
    extend_time = pc->cap_user_time;
    if (extend_time) {
      // Converted inside the loop, as the perf_event_mmap_page comment
      // does: the fields are only consistent under this lock value.
      elapsed = ElapsedSincePageUpdate(
          PageClock{read_timestamp(), pc->time_offset, pc->time_mult,
                    pc->time_shift, static_cast<bool>(pc->cap_user_time_short),
                    pc->time_cycles, pc->time_mask});
    }
    const uint32_t index = pc->index;
    r.count = pc->offset;
    user_read = pc->cap_user_rdpmc && index != 0;
    if (user_read) {
      const uint16_t width = pc->pmc_width;
      r.count +=
          static_cast<uint64_t>(SignExtend(read_counter(index - 1), width));
    }
    ReadBarrier();
    if (pc->lock == seq) break;
  }
  // index == 0: the event is not on a counter now; cap_user_rdpmc == 0: the
  // kernel forbids the instruction. Either way offset alone would miss what
  // accrued since the kernel last updated the page.
  if (!user_read) return std::nullopt;
  if (extend_time) {
    r.time_enabled += elapsed;
    r.time_running += elapsed;  // on the PMU (index != 0): it ran all along
  } else if (r.time_enabled != r.time_running) {
    return std::nullopt;
  }
  return r;
}

// A group member's count alone, under its page's seqlock as in ReadMmapPage,
// but with no times and no timestamp read (a group is scheduled as one, so
// the leader's times are the group's: perf_event_open(2), "group_fd"); kept
// apart from ReadMmapPage so that each member costs only its loads and its
// counter read. False when the caller must fall back to read(2): no
// cap_user_rdpmc, or the event is not on a counter now.
template <typename ReadCounter = RdpmcInstruction>
[[gnu::always_inline]] inline bool ReadPageCount(
    const volatile perf_event_mmap_page* pc, uint64_t& count,
    ReadCounter read_counter = ReadCounter{}) {
  for (;;) {
    const uint32_t seq = pc->lock;
    ReadBarrier();
    if (seq & 1) continue;  // an update is in progress
    const uint32_t index = pc->index;
    // A torn read here only sends the caller to read(2), which is exact.
    // Two tests, not one `||`: each is then a single compare-and-branch.
    if (__builtin_expect(index == 0, 0)) return false;
    if (__builtin_expect(!pc->cap_user_rdpmc, 0)) return false;
    const uint64_t offset = pc->offset;
    const uint16_t width = pc->pmc_width;
    const uint64_t value = offset + static_cast<uint64_t>(SignExtend(
                                        read_counter(index - 1), width));
    ReadBarrier();
    if (pc->lock == seq) {
      count = value;
      return true;
    }
  }
}

// Every count of a group of `n` events from their pages, and the group's
// enabled and running times from the leader's (pages[0]), brought up to the
// moment of the read. Inline so that a snapshot is one straight run of
// loads and counter reads. False: read the group with read(2) instead.
template <typename ReadCounter = RdpmcInstruction,
          typename ReadTimestamp = RdtscInstruction>
[[gnu::always_inline]] inline bool ReadGroupPages(
    const perf_event_mmap_page* const* pages, size_t n, uint64_t* counts,
    uint64_t& time_enabled, uint64_t& time_running,
    ReadCounter read_counter = ReadCounter{},
    ReadTimestamp read_timestamp = ReadTimestamp{}) {
  const std::optional<MmapReading> leader =
      ReadMmapPage(pages[0], read_counter, read_timestamp);
  if (!leader) return false;
  counts[0] = leader->count;
  time_enabled = leader->time_enabled;
  time_running = leader->time_running;
  for (size_t i = 1; i < n; ++i) {
    if (!ReadPageCount(pages[i], counts[i], read_counter)) return false;
  }
  return true;
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_MMAP_READER_H_
