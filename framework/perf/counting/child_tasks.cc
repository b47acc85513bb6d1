#include "framework/perf/counting/child_tasks.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace pmubench::perf {
namespace {

// A disabled task-clock event on the calling thread, user-space only so
// that perf_event_paranoid 2 (the usual default) allows it.
ScopedFd OpenTaskClock(bool inherit) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  attr.inherit = inherit ? 1 : 0;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return ScopedFd(static_cast<int>(
      syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)));
}

bool ReadCount(const ScopedFd& fd, uint64_t& value) {
  return read(fd.get(), &value, sizeof(value)) ==
         static_cast<ssize_t>(sizeof(value));
}

}  // namespace

ChildTaskWatch::ChildTaskWatch()
    : own_(OpenTaskClock(false)), tree_(OpenTaskClock(true)) {
  if (!on()) return;
  // The inherited window inside the own one (child_tasks.h says why).
  ioctl(own_.get(), PERF_EVENT_IOC_ENABLE, 0);
  ioctl(tree_.get(), PERF_EVENT_IOC_ENABLE, 0);
}

bool ChildTaskWatch::ChildrenRan() {
  if (!on()) return false;
  ioctl(tree_.get(), PERF_EVENT_IOC_DISABLE, 0);
  ioctl(own_.get(), PERF_EVENT_IOC_DISABLE, 0);
  uint64_t tree = 0;
  uint64_t own = 0;
  const bool read_both = ReadCount(tree_, tree) && ReadCount(own_, own);
  own_.Reset();
  tree_.Reset();
  return read_both && tree > own;
}

}  // namespace pmubench::perf
