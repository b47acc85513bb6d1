// Whether the tests run on QEMU's "virt" machine (its device tree says so),
// where scripts/pmu-vm runs them: there the emulated PMU and `-icount`
// clock behave in documented ways some tests must allow for (they say which
// and why when they skip or assert otherwise).
#ifndef PMUBENCH_TESTS_PERF_QEMU_VIRT_H_
#define PMUBENCH_TESTS_PERF_QEMU_VIRT_H_

#include <fstream>
#include <iterator>
#include <string>

namespace pmubench::testing {

inline bool OnQemuVirt() {
  std::ifstream compatible("/proc/device-tree/compatible");
  const std::string text((std::istreambuf_iterator<char>(compatible)),
                         std::istreambuf_iterator<char>());
  return text.find("linux,dummy-virt") != std::string::npos;
}

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_PERF_QEMU_VIRT_H_
