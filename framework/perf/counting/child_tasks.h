// ChildTaskWatch: tells whether the calling thread started threads (or
// processes) that ran while the watch was open. A counting pass reads only
// the thread it runs on (counter_group.h: no inherit, so that rdpmc can
// read it), so work done in such threads is in no count; the runner says so
// on the row.
//
// How: two task-clock software events on the calling thread
// (PERF_COUNT_SW_TASK_CLOCK, perf_event_open(2)), one with `inherit`, which
// adds the time of every task the thread clones while it is enabled (the
// children's counts are summed into it when read or when they exit). The
// inherited one is enabled after and disabled before the other, so the
// calling thread's own time in it is never more than in the other: more in
// total means a child ran. A child that ran less than the few system calls
// between the two enables and disables (about a microsecond natively) can
// be missed; no thread is ever reported that did not run.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_CHILD_TASKS_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_CHILD_TASKS_H_

#include "framework/perf/counting/scoped_fd.h"

namespace pmubench::perf {

class ChildTaskWatch {
 public:
  // Opens and enables both events; when either cannot be opened (a
  // perf_event_paranoid of 3, a seccomp filter), the watch is off.
  ChildTaskWatch();
  ChildTaskWatch(const ChildTaskWatch&) = delete;
  ChildTaskWatch& operator=(const ChildTaskWatch&) = delete;

  bool on() const { return own_.valid() && tree_.valid(); }
  // Disables both and tells whether a task the calling thread started
  // since the watch opened ran (false when the watch is off). Call once,
  // on the thread that made the watch.
  bool ChildrenRan();

 private:
  ScopedFd own_;   // this thread only
  ScopedFd tree_;  // this thread and the tasks it clones (inherit)
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_CHILD_TASKS_H_
