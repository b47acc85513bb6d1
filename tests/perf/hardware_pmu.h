// For tests that only a real core PMU can run (exact instruction counts,
// user-space counter reads, counter limits): they skip, printing why, on
// machines without one (VMs without a virtual PMU). scripts/pmu-vm runs them
// for real on an arm64 kernel with an emulated PMUv3.
//
//   TEST(HardwareX, Y) {
//     PMUBENCH_SKIP_IF_NO_HARDWARE_PMU();
//     ...
#ifndef PMUBENCH_TESTS_PERF_HARDWARE_PMU_H_
#define PMUBENCH_TESTS_PERF_HARDWARE_PMU_H_

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "framework/perf/events/pmu.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"

namespace pmubench::testing {

// "" when a core PMU is there and counts user-space instructions for this
// thread; else why not (no core PMU in sysfs, or `instructions` does not
// open).
inline std::string NoHardwarePmuReason() {
  if (std::string why = PerfNotPermittedReason(); !why.empty()) return why;
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  if (!pmus.ok() || !pmus->HasHardwarePmu()) {
    return std::string("no core PMU under ") + perf::kDefaultSysfsRoot +
           " (a VM without a virtual PMU?); scripts/pmu-vm test runs this "
           "on an emulated one";
  }
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    return std::string("the core PMU does not open `instructions`: ") +
           std::strerror(errno);
  }
  close(static_cast<int>(fd));
  return "";
}

// /proc/sys/kernel/perf_user_access (arm64 only: 1 lets user space read the
// counters of its own events); nullopt where the file does not exist.
inline std::optional<int> PerfUserAccess() {
  std::ifstream in("/proc/sys/kernel/perf_user_access");
  int value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

// "" when the kernel lets user space read counters (x86: the core PMU's
// rdpmc file is not 0; arm64: perf_user_access is 1), else why not.
inline std::string NoUserReadReason() {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  if (pmus.ok() && pmus->RdpmcSetting().value_or(1) == 0) {
    return "user-space counter reads are off (the core PMU's rdpmc file is 0)";
  }
  if (PerfUserAccess().value_or(1) == 0) {
    return "user-space counter reads are off (sysctl "
           "kernel.perf_user_access=0; set it to 1)";
  }
  return "";
}

}  // namespace pmubench::testing

#define PMUBENCH_SKIP_IF_NO_HARDWARE_PMU()                                   \
  if (std::string pmubench_why = ::pmubench::testing::NoHardwarePmuReason(); \
      !pmubench_why.empty())                                                 \
  GTEST_SKIP() << pmubench_why

#endif  // PMUBENCH_TESTS_PERF_HARDWARE_PMU_H_
