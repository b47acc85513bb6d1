// Event specs: the text a user writes (as `perf stat -e` spells it) turned
// into a perf_event_attr.
//
//   absl::StatusOr<pmubench::perf::PmuRegistry> pmus = PmuRegistry::Load();
//   absl::StatusOr<pmubench::perf::ResolvedEvent> ev =
//       pmubench::perf::ResolveEvent("L1-dcache-load-misses:u", *pmus);
//
// Accepted forms:
//   generic hardware   cycles, instructions, branches, branch-misses,
//                      cache-references, cache-misses, ref-cycles, bus-cycles,
//                      stalled-cycles-frontend, stalled-cycles-backend
//   hardware cache     L1-dcache-load-misses, LLC-loads, dTLB-load-misses, ...
//                      (every name `perf list hwcache` prints)
//   software           task-clock, cpu-clock, page-faults, minor-faults,
//                      major-faults, context-switches, cpu-migrations,
//                      alignment-faults, emulation-faults, ...
//   raw                rNNNN (hex config on the core PMU)
//   sysfs              pmu/term=value,term,.../  and  pmu/alias/
//                      (terms from /sys/bus/event_source/devices/PMU/format/*,
//                       aliases from .../events/*, with .scale and .unit)
//   modifiers          :u  :k  :uk  (suffix on any of the above; sysfs
//                      specs also take them right after the closing slash:
//                      cpu/event=0xc0/u)
//
// sysfs terms: a value is decimal or 0x-hex; a bare term means =1 (inv);
// config=, config1= and config2= set a whole word; an alias expands to its
// own terms and later terms override it (cpu/mem-loads,ldlat=64/). A value
// wider than its format field is an error, never silently truncated.
//
// NOTE: resolution only reads sysfs; it never calls perf_event_open. Whether
// the machine can count the event is learned when a CounterGroup opens it.
#ifndef PMUBENCH_FRAMEWORK_PERF_EVENTS_EVENT_SPEC_H_
#define PMUBENCH_FRAMEWORK_PERF_EVENTS_EVENT_SPEC_H_

#include <linux/perf_event.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/perf/events/pmu.h"

namespace pmubench::perf {

// Privilege-level modifiers written after the last ':' of a spec.
struct Modifiers {
  bool user = true;
  bool kernel = false;
  // False when the spec carried no modifier: the group's defaults apply.
  bool explicit_ = false;
};

// A spec resolved to what perf_event_open needs.
struct ResolvedEvent {
  std::string spec;      // exactly as the user wrote it (the JSON name)
  std::string pmu_name;  // "cpu", "software", "msr", "hw_cache", ...
  uint32_t type = 0;     // perf_event_attr.type
  uint64_t config = 0;   // perf_event_attr.config
  uint64_t config1 = 0;  // perf_event_attr.config1
  uint64_t config2 = 0;  // perf_event_attr.config2
  Modifiers modifiers;
  double scale = 1.0;  // sysfs events/<alias>.scale, else 1
  std::string unit;    // sysfs events/<alias>.unit, else ""
  // True when the event needs a hardware PMU (generic hardware, cache, raw,
  // or a core PMU); false for software and uncore-like sysfs PMUs.
  bool needs_hardware_pmu = false;
  // The core PMU that counts this hardware event ("cpu", "cpu_core",
  // "armv8_pmuv3", ...); "" for software and uncore events, and for hardware
  // events on a machine without a core PMU.
  std::string core_pmu;
  // True when resolution set the core PMU's format/rdpmc term (arm64:
  // rdpmc=config1:1), which asks the kernel to allow user-space reads of the
  // counter. Only PMUs that have the term get it; a value the spec wrote for
  // the term (or for its whole config word) is kept.
  bool user_read_term_set = false;
};

// Parses and resolves one spec against `pmus`. Errors (InvalidArgument or
// NotFound) name the spec, point at the offending position, and list valid
// names close to an unknown one.
absl::StatusOr<ResolvedEvent> ResolveEvent(std::string_view spec,
                                           const PmuRegistry& pmus);

// Resolves a comma-separated list, splitting on commas outside `pmu/.../`.
absl::StatusOr<std::vector<ResolvedEvent>> ResolveEventList(
    std::string_view specs, const PmuRegistry& pmus);

// Splits "a,b,pmu/x=1,y=2/" into {"a", "b", "pmu/x=1,y=2/"}.
std::vector<std::string> SplitEventList(std::string_view specs);

// Every generic hardware, cache and software name this parser accepts, plus
// the sysfs aliases of `pmus` written as pmu/alias/. For help text and for
// "did you mean" suggestions.
std::vector<std::string> KnownEventNames(const PmuRegistry& pmus);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_EVENTS_EVENT_SPEC_H_
