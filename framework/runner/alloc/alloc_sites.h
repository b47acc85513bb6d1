// Where a batch's allocations come from: while site recording is on for the
// calling thread, each allocation the tally counts (alloc_tally.h) is also
// counted at its call site, the return address into the function that
// called the allocator (malloc's caller; operator new's caller for a
// new), with the return addresses of the kAllocSiteAbove frames above it,
// so a standard-library caller (std::string's _M_create, called by
// _M_mutate, called by the user's code) can be shown with the function
// outside the library that called it.
//
//   AllocSitesBegin();             // before the batch (the profiled one)
//   ... the batch: each counted allocation is recorded at its site ...
//   AllocSitesEnd();
//   std::vector<AllocSiteCount> s = AllocSitesPerIteration(iterations);
//
// Recorded only when asked: natively during the profiling pass's batch
// (--pmubench_profile), under callgrind in segment 1 of every measured
// batch when a profile is asked for (simulated_meter.h: the segment of n
// steps after the warm-up). The frames above are found with the unwinder
// (_Unwind_Backtrace, from libgcc), about a microsecond per allocation:
// only under callgrind, where collection is switched off around the
// recording (CALLGRIND_TOGGLE_COLLECT, Valgrind manual, "Callgrind: client
// requests"). Callgrind still counts a few tens of instructions of each
// recording (the blocks around the switches, the tally's slower path), so
// it stays out of segments 2 and 3, which the row's counts and profile come
// from: a profiled row counts exactly what an unprofiled one does. Natively
// the caller alone is recorded (a lookup in the table), so the profiled
// batch's samples stay the case's.
//
// The table is bounded (kMaxAllocSites sites per thread): allocations at
// sites beyond it are counted as `dropped`, never lost from the totals.
// Counts are exact (every counted allocation of the segment is recorded):
// under callgrind n steps after a warm-up of as many or more, so a case
// whose iterations allocate alike gets the tally's per-iteration figure.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_SITES_H_
#define PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_SITES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pmubench::internal {

inline constexpr int kMaxAllocSites = 64;
inline constexpr int kAllocSiteAbove = 3;

struct AllocSite {
  uintptr_t caller = 0;  // return address into the allocator's caller
  // Return addresses of the frames above it, nearest first (0: none).
  uintptr_t above[kAllocSiteAbove] = {};
  uint64_t allocs[4] = {};  // per loop segment (index 0 natively)
  uint64_t bytes[4] = {};
};

struct AllocSiteTable {
  bool on = false;
  int used = 0;
  uint64_t dropped[4] = {};  // allocations at sites past the table's end
  AllocSite sites[kMaxAllocSites];
};

// A site's allocations and bytes per iteration.
struct AllocSiteCount {
  uintptr_t caller = 0;
  uintptr_t above[kAllocSiteAbove] = {};
  double allocs = 0;
  double bytes = 0;
};

// Sites are wanted (--pmubench_profile): natively in the batches between
// AllocSitesBegin and AllocSitesEnd; with `every_batch` (under callgrind)
// in every measured batch. Set once, before any case runs.
void EnableAllocSites(bool every_batch);

// The calling thread's table: zeroed and on; off.
void AllocSitesBegin();
void AllocSitesEnd();

// Called by the interposed allocator for each counted allocation when
// sites are wanted (alloc_tally.h: alloc_sites_wanted); records it when
// the thread's table is on. `segment` is the tally's loop segment (0..3).
void RecordAllocSite(uintptr_t caller, size_t size, int segment);

// Natively: the table's segment 0 over `iterations`. Under callgrind:
// segment 1 (n steps) over `iterations`, those steps' iterations. Sites
// whose count is 0 per iteration are left out; the dropped allocations, if
// any, are one entry with caller 0.
std::vector<AllocSiteCount> AllocSitesPerIteration(double iterations);
std::vector<AllocSiteCount> SimulatedAllocSites(double iterations);

// The sites of a case's last profiled batch (thread 0), by case index
// (under callgrind) or kProfiledBatchSites (the profiling pass's batch), for
// the profile's JSON fields.
inline constexpr int kProfiledBatchSites = -1;
void RecordAllocSites(int case_index, std::vector<AllocSiteCount> sites);
std::vector<AllocSiteCount> TakeAllocSites(int case_index);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_SITES_H_
