// The calling thread's heap tally: what pmubench's interposed allocator
// (interpose.cc) counts while a counted segment of a batch runs on this
// thread, and the inline switches State turns it on and off with.
//
//   AllocBeginBatch();   // the loop starts: tally zeroed, counting on
//   ... the case's iterations: each malloc/new/free/delete is tallied ...
//   AllocPause();        // PauseTiming or the loop's end: counting off
//   AllocResume();       // ResumeTiming: on again
//   AllocCounts c = AllocTotals();   // after the batch, on the same thread
//
// Outside a counted segment an allocation costs one thread-local flag test
// more than glibc's own. Only this thread is tallied: every thread of a
// ->Threads(N) case runs its own State, so each counts its own share.
// Counting is on only once the runner has checked that the allocator in
// this process is pmubench's (alloc_probe.h: SetAllocCounting); until then,
// and with --pmubench_allocations=off, the switches leave it off.
//
// Under callgrind each segment boundary of the loop (State::SegmentBoundary)
// marks the tally (AllocMark), so the per-iteration figure is the slope
// between segments, as the simulated counts are (simulated_meter.h).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_TALLY_H_
#define PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_TALLY_H_

#include <cstdint>

namespace pmubench::internal {

// Counts since the batch began (peak: since the last mark or the batch's
// start, in live bytes above the live bytes then).
struct AllocCounts {
  uint64_t allocs = 0;
  uint64_t bytes = 0;
  uint64_t frees = 0;
  int64_t peak = 0;
};

// A block made while counting whose chunk is not the exact fit of its
// request (glibc mapped it on its own, above M_MMAP_THRESHOLD, or handed
// out a larger chunk): the live bytes it was counted for (interpose.cc).
struct InexactBlock {
  const void* block = nullptr;
  int64_t live_bytes = 0;
};

struct AllocTally {
  bool on = false;
  // While on, whether the allocator entry points tally glibc's heap chunks
  // inline, with no call (interpose.cc; natively and under callgrind), or
  // everything through one out-of-line function (another allocator,
  // allocation sites recorded). Two flags, not one value: each test is one
  // compare with memory.
  bool heap_chunks_inline = false;
  // The same for frees, and no inexact block remembered (their frees
  // must find them): one flag, one test on each free.
  bool frees_inline = false;
  // While on, whether each counted allocation is recorded at its call site
  // (alloc_sites.h): in the profiled batch natively, in segment 1 alone
  // under callgrind.
  bool record_sites = false;
  // Under callgrind, the flags above for each of the loop's four segments,
  // taken at each boundary (AllocMark): the two segments the row's counts
  // come from (2 and 3) tally inline, with no site recorded, whether or not
  // a profile is asked for, so a profiled row counts what an unprofiled one
  // does.
  bool inline_in[4] = {};
  bool sites_in[4] = {};
  uint64_t allocs = 0;  // calls that returned new heap memory
  // Not next to `allocs`: GCC would pair the two adds in one SSE add, four
  // instructions more on each counted allocation.
  uint64_t frees = 0;  // calls that gave heap memory back
  uint64_t bytes = 0;  // bytes those calls asked for
  // Usable bytes allocated minus freed while on, the largest value since
  // `base` was taken, and `live` at that time. Each block counts as its
  // request's exact fit in glibc's heap, whatever chunk it got
  // (interpose.cc: LiveBytesOfNew).
  int64_t live = 0;
  int64_t peak = 0;
  int64_t base = 0;
  // Under callgrind: the counts at the end of each of the loop's four
  // segments (simulated_meter.h), and the segment running now.
  AllocCounts marks[4];
  int segment = 0;
  // The inexact blocks made while counting and not yet freed, in an
  // array searched from its end (not by address: a search then takes the
  // same instructions wherever the blocks are); past kInexactBlocks at
  // once, the later ones count at their chunk's usable size.
  static constexpr int kInexactBlocks = 128;
  int inexact_count = 0;
  InexactBlock inexact[kInexactBlocks];
};

// Whether this process counts allocations (set once, before any case runs).
extern constinit bool alloc_counting;
// initial-exec: a fixed offset from the thread pointer, no __tls_get_addr
// call on the allocator's path (pmubench is loaded with the program, never
// by dlopen).
extern thread_local constinit AllocTally alloc_tally
    __attribute__((tls_model("initial-exec")));
// Whether allocation sites are recorded in some batch (alloc_sites.h): set
// once, with --pmubench_profile.
extern constinit bool alloc_sites_wanted;
// alloc_sites.h: when this batch records sites, the thread's site table
// zeroed and the segment recorded (0 natively, 1 under callgrind); else -1.
int AllocSitesAtBatchStart();
// interpose.cc: whether heap chunks can be tallied inline (glibc's
// allocator found).
bool AllocHeapChunksInline() noexcept;

// The flags of the segment now running (inline_in, sites_in). Loads and
// stores, no branch: the same instructions at every boundary (AllocMark).
inline void TakeSegmentFlags(AllocTally& t) noexcept {
  t.heap_chunks_inline = t.inline_in[t.segment];
  t.frees_inline = t.inline_in[t.segment] & (t.inexact_count == 0);
  t.record_sites = t.sites_in[t.segment];
}

inline void AllocBeginBatch() noexcept {
  if (!alloc_counting) return;
  AllocTally& t = alloc_tally;
  t = AllocTally{};
  t.on = true;
  const bool chunks_inline = AllocHeapChunksInline();
  int recorded = -1;
  if (alloc_sites_wanted) [[unlikely]]
    recorded = AllocSitesAtBatchStart();
  for (int k = 0; k < 4; ++k) {
    t.inline_in[k] = chunks_inline && k != recorded;
    t.sites_in[k] = k == recorded;
  }
  TakeSegmentFlags(t);
}
inline void AllocPause() noexcept { alloc_tally.on = false; }
inline void AllocResume() noexcept { alloc_tally.on = alloc_counting; }

// The end of loop segment `k` (0..3) under callgrind: the counts so far and
// the segment's peak; the next segment's peak starts from here. The same
// instructions at every boundary, so callgrind's segment slope cancels them.
inline void AllocMark(int k) noexcept {
  AllocTally& t = alloc_tally;
  t.marks[k & 3] = {t.allocs, t.bytes, t.frees, t.peak - t.base};
  t.base = t.live;
  t.peak = t.live;
  t.segment = k < 3 ? k + 1 : 3;
  TakeSegmentFlags(t);
}

inline AllocCounts AllocTotals() noexcept {
  const AllocTally& t = alloc_tally;
  return {t.allocs, t.bytes, t.frees, t.peak};
}

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_TALLY_H_
