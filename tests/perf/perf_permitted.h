// Whether this user may open perf events at all. Where it may not (EACCES or
// EPERM from perf_event_open even for a user-space software event:
// perf_event_paranoid 3 on Debian's kernels, or a seccomp profile), tests
// that count real events skip with the reason printed: they could only fail,
// and the error already names the remedy.
//
//   TEST(CounterGroupTest, Counts) {
//     PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
//     ...
#ifndef PMUBENCH_TESTS_PERF_PERF_PERMITTED_H_
#define PMUBENCH_TESTS_PERF_PERF_PERMITTED_H_

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace pmubench::testing {

// "" when a user-space task-clock event opens for this thread, else why not.
inline std::string PerfNotPermittedReason() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) {
    close(static_cast<int>(fd));
    return "";
  }
  if (errno != EACCES && errno != EPERM) return "";  // the tests will say
  return std::string("perf_event_open(task-clock) fails with ") +
         std::strerror(errno) +
         ": this user may not count perf events (see "
         "/proc/sys/kernel/perf_event_paranoid; `sudo sysctl -w "
         "kernel.perf_event_paranoid=2` or CAP_PERFMON)";
}

}  // namespace pmubench::testing

// In a test body or a fixture's SetUp: skips, printing why, where this user
// may not open perf events.
#define PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED()            \
  if (std::string pmubench_why =                         \
          ::pmubench::testing::PerfNotPermittedReason(); \
      !pmubench_why.empty())                             \
  GTEST_SKIP() << pmubench_why

#endif  // PMUBENCH_TESTS_PERF_PERF_PERMITTED_H_
