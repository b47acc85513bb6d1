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
#ifndef PMUBENCH_FRAMEWORK_PERF_PERF_ERRORS_H_
#define PMUBENCH_FRAMEWORK_PERF_PERF_ERRORS_H_

#include "absl/status/status.h"
#include "framework/perf/event_spec.h"

namespace pmubench::perf {

// The one-line remedy for a machine without a hardware PMU; the runner
// prints it when it falls back to software events.
inline constexpr char kNoHardwarePmuRemedy[] =
    "this machine exposes no hardware PMU (a VM without a virtual PMU?); use "
    "software events such as task-clock,page-faults";

// The status for a failed perf_event_open of `event` (errno `err`), opened as
// member number `index` of a group of `group_size` events.
absl::Status PerfOpenError(int err, const ResolvedEvent& event, int index,
                           int group_size);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_PERF_ERRORS_H_
