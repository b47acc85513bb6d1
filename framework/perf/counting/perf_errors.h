// perf_event_open(2) failures turned into statuses that say how to fix them.
//
//   int fd = syscall(SYS_perf_event_open, &attr, 0, -1, leader_fd, flags);
//   if (fd < 0) return PerfOpenError(errno, event, index, group_size);
//
// Status codes: ENOENT/ENODEV/EOPNOTSUPP -> NotFound (the machine cannot
// count the event: no hardware PMU at all, or a core PMU that lacks this
// event), EACCES/EPERM -> PermissionDenied, EMFILE/ENFILE ->
// ResourceExhausted, EINVAL -> InvalidArgument, EBUSY -> Unavailable, other
// errno values -> Internal.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_PERF_ERRORS_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_PERF_ERRORS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/system/machine.h"

namespace pmubench::perf {

// The one-line remedy for a machine without a hardware PMU; part of the
// NotFound status of hardware events there.
inline constexpr char kNoHardwarePmuRemedy[] =
    "this machine exposes no hardware PMU (a VM without a virtual PMU?); use "
    "software events such as task-clock,page-faults";

// The status for a failed perf_event_open of `event` (errno `err`), opened as
// member number `index` of a group of `group_size` events.
absl::Status PerfOpenError(int err, const ResolvedEvent& event, int index,
                           int group_size);

// InvalidArgument for an explicit :u or :k on a PMU that cannot separate
// user and kernel (it rejects every exclude_* bit: msr, most uncore PMUs),
// naming the spec and the modifier to drop.
absl::Status ModifierNotSeparableError(const ResolvedEvent& event);

// True when `event` may be counted on a fixed-function counter of `arch`
// rather than a general-purpose one: x86 generic cycles, instructions and
// ref-cycles (Intel's fixed counters); arm64 cycles (PMCCNTR_EL0, event
// 0x11). Dropping such an event frees no general-purpose counter.
bool MayUseFixedCounter(const ResolvedEvent& event, Arch arch);

// FailedPrecondition for a pinned group the PMU could not schedule (read(2)
// returns 0 bytes after the enable): names the group, the counter count
// (`counters` from CPUID, or what `arch` allows to say), and the last event
// whose removal frees a general-purpose counter.
absl::Status GroupErrorStateError(const std::vector<ResolvedEvent>& events,
                                  Arch arch, std::optional<int> counters);

// "6 general-purpose counters", or why the number is unknown on `arch`.
std::string CounterCountText(Arch arch, std::optional<int> counters);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_PERF_ERRORS_H_
