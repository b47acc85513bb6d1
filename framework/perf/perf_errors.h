// perf_event_open(2) failures turned into statuses that say how to fix them.
//
//   int fd = PerfEventOpen(&attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
//   if (fd < 0) return PerfOpenError(errno, event, group_size);
//
// Status codes: ENOENT/ENODEV/EOPNOTSUPP -> NotFound (the machine cannot
// count the event), EACCES/EPERM -> PermissionDenied, EMFILE/ENFILE ->
// ResourceExhausted, EINVAL -> InvalidArgument, EBUSY -> Unavailable, other
// errno values -> Internal.
#ifndef PMUBENCH_FRAMEWORK_PERF_PERF_ERRORS_H_
#define PMUBENCH_FRAMEWORK_PERF_PERF_ERRORS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "framework/perf/event_spec.h"

namespace pmubench::perf {

inline constexpr char kParanoidPath[] = "/proc/sys/kernel/perf_event_paranoid";

// The one-line remedy for a machine without a hardware PMU; the runner
// prints it when it falls back to software events.
inline constexpr char kNoHardwarePmuRemedy[] =
    "this machine exposes no hardware PMU (a VM without a virtual PMU?); use "
    "software events such as task-clock,page-faults";

// The status for a failed perf_event_open of `event` (errno `err`), opened as
// member number `index` of a group of `group_size` events.
absl::Status PerfOpenError(int err, const ResolvedEvent& event, int index,
                           int group_size);

// /proc/sys/kernel/perf_event_paranoid, or nullopt when unreadable.
std::optional<int> PerfEventParanoid();

// Number of general-purpose counters of this CPU's core PMU from CPUID (x86:
// leaf 0xA on Intel, leaf 0x80000022 or the family default on AMD); nullopt
// when unknown (other architectures, or a VM that reports none).
std::optional<int> GeneralPurposeCounterCount();

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_PERF_ERRORS_H_
