#include "framework/runner/alloc/alloc_sites.h"

#include <unwind.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "framework/runner/alloc/alloc_tally.h"

namespace pmubench::internal {

constinit bool alloc_sites_wanted = false;

namespace {

constinit bool every_batch = false;
thread_local constinit AllocSiteTable table;

// The unwinder's walk: return addresses of the calling stack, innermost
// first (for each frame but the first, _Unwind_GetIP is the address its
// callee returns to, as __builtin_return_address gives it), up to
// kAllocSiteAbove frames past `caller`'s: no frame further is needed.
struct Walk {
  static constexpr int kFrames = 16;
  uintptr_t caller = 0;
  uintptr_t ips[kFrames] = {};
  int n = 0;
  int at_caller = -1;  // the index of `caller` in ips, once found
};

_Unwind_Reason_Code Step(_Unwind_Context* context, void* arg) {
  auto* walk = static_cast<Walk*>(arg);
  const uintptr_t ip = _Unwind_GetIP(context);
  if (walk->at_caller < 0 && ip == walk->caller) walk->at_caller = walk->n;
  walk->ips[walk->n++] = ip;
  const bool past =
      walk->at_caller >= 0 && walk->n - 1 - walk->at_caller == kAllocSiteAbove;
  return past || walk->n == Walk::kFrames ? _URC_END_OF_STACK : _URC_NO_REASON;
}

// The return addresses in the frames above the one `caller` returns into.
void FindAbove(uintptr_t caller, uintptr_t (&above)[kAllocSiteAbove]) {
  Walk walk;
  walk.caller = caller;
  _Unwind_Backtrace(Step, &walk);
  if (walk.at_caller < 0) return;
  for (int k = 0; k < kAllocSiteAbove && walk.at_caller + 1 + k < walk.n; ++k) {
    above[k] = walk.ips[walk.at_caller + 1 + k];
  }
}

void Insert(uintptr_t caller, size_t size, int segment, bool with_above) {
  uintptr_t above[kAllocSiteAbove] = {};
  if (with_above) FindAbove(caller, above);
  for (int i = 0; i < table.used; ++i) {
    AllocSite& s = table.sites[i];
    if (s.caller == caller &&
        std::equal(above, above + kAllocSiteAbove, s.above)) {
      ++s.allocs[segment];
      s.bytes[segment] += size;
      return;
    }
  }
  if (table.used == kMaxAllocSites) {
    ++table.dropped[segment];
    return;
  }
  AllocSite& s = table.sites[table.used++];
  s = AllocSite{};
  s.caller = caller;
  std::copy(above, above + kAllocSiteAbove, s.above);
  ++s.allocs[segment];
  s.bytes[segment] += size;
}

std::mutex g_mu;
std::map<int, std::vector<AllocSiteCount>>& Stored() {
  static auto* stored = new std::map<int, std::vector<AllocSiteCount>>();
  return *stored;
}

// Per iteration from the one segment recorded (AllocSitesAtBatchStart),
// of `iterations` iterations.
std::vector<AllocSiteCount> PerIteration(int segment, double iterations) {
  auto slope = [&](const uint64_t* v) {
    return static_cast<double>(v[segment]) / std::max(1.0, iterations);
  };
  std::vector<AllocSiteCount> out;
  for (int i = 0; i < table.used; ++i) {
    const AllocSite& s = table.sites[i];
    AllocSiteCount c{s.caller, {}, slope(s.allocs), slope(s.bytes)};
    std::copy(s.above, s.above + kAllocSiteAbove, c.above);
    if (c.allocs != 0 || c.bytes != 0) out.push_back(c);
  }
  if (const double dropped = slope(table.dropped); dropped != 0) {
    out.push_back({0, {}, dropped, 0});
  }
  return out;
}

}  // namespace

void EnableAllocSites(bool every) {
  alloc_sites_wanted = true;
  every_batch = every;
}

void AllocSitesBegin() {
  table.used = 0;
  std::fill(std::begin(table.dropped), std::end(table.dropped), 0);
  table.on = true;
}

void AllocSitesEnd() { table.on = false; }

int AllocSitesAtBatchStart() {
  if (!every_batch && !table.on) return -1;
  AllocSitesBegin();
  // Under callgrind, segment 1 (n steps, after the warm-up): not one of
  // the two the row's counts come from (simulated_meter.h), so recording,
  // which callgrind counts a few tens of instructions of per allocation
  // however collection is switched, leaves them as without a profile.
  return every_batch ? 1 : 0;
}

void RecordAllocSite(uintptr_t caller, size_t size, int segment) {
  // Under callgrind (every_batch): collection off first, so that the
  // simulated counts hold as little of this as can be.
  const bool simulated = every_batch;
  if (simulated) CALLGRIND_TOGGLE_COLLECT;
  if (table.on) {
    // Allocations the unwinder might make are not the case's.
    AllocTally& t = alloc_tally;
    const bool was_on = t.on;
    t.on = false;
    Insert(caller, size, std::clamp(segment, 0, 3), simulated);
    t.on = was_on;
  }
  if (simulated) CALLGRIND_TOGGLE_COLLECT;
}

std::vector<AllocSiteCount> AllocSitesPerIteration(double iterations) {
  return PerIteration(0, iterations);
}

std::vector<AllocSiteCount> SimulatedAllocSites(double iterations) {
  if (!every_batch) return {};
  return PerIteration(1, iterations);
}

void RecordAllocSites(int case_index, std::vector<AllocSiteCount> sites) {
  std::lock_guard<std::mutex> lock(g_mu);
  Stored()[case_index] = std::move(sites);
}

std::vector<AllocSiteCount> TakeAllocSites(int case_index) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = Stored().find(case_index);
  if (it == Stored().end()) return {};
  std::vector<AllocSiteCount> sites = std::move(it->second);
  Stored().erase(it);
  return sites;
}

}  // namespace pmubench::internal
