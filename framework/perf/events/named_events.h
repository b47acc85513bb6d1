// The named events the kernel defines without sysfs: generic hardware
// (PERF_TYPE_HARDWARE), hardware cache (PERF_TYPE_HW_CACHE) and software
// (PERF_TYPE_SOFTWARE), spelled as `perf list` prints them.
//
//   std::optional<NamedEvent> e = FindNamedEvent("L1-dcache-load-misses");
//   // e->type == PERF_TYPE_HW_CACHE, e->config == L1D | (READ << 8) | (MISS <<
//   16)
#ifndef PMUBENCH_FRAMEWORK_PERF_EVENTS_NAMED_EVENTS_H_
#define PMUBENCH_FRAMEWORK_PERF_EVENTS_NAMED_EVENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmubench::perf {

struct NamedEvent {
  std::string name;     // canonical spelling, e.g. "cycles", "LLC-load-misses"
  uint32_t type = 0;    // PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE or _SOFTWARE
  uint64_t config = 0;  // without the PMU type bits of hybrid machines
};

// Looks up a generic hardware, cache or software name. Generic and software
// names match exactly (with perf's aliases: cpu-cycles, branch-instructions,
// faults, cs, migrations, ...); cache names match case-insensitively, as in
// perf ("l1-dcache-load-misses" is accepted).
std::optional<NamedEvent> FindNamedEvent(std::string_view name);

// Every canonical name FindNamedEvent accepts, generic hardware first, then
// cache, then software. For help text and "did you mean" suggestions.
const std::vector<NamedEvent>& AllNamedEvents();

// True for PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE and PERF_TYPE_RAW: events
// that only a hardware (core) PMU can count.
bool IsHardwareType(uint32_t type);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_EVENTS_NAMED_EVENTS_H_
