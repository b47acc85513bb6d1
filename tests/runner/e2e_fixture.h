// What the end-to-end tests of a binary linked with pmubench_main share: the
// E2eTest fixture (a fresh temporary directory per test, RunCases to run
// e2e_cases.cc's binary as a subprocess) and a few facts of the machine.
// The tests are in e2e_*_test.cc by what they check; main() in e2e_main.cc.
#ifndef PMUBENCH_TESTS_RUNNER_E2E_FIXTURE_H_
#define PMUBENCH_TESTS_RUNNER_E2E_FIXTURE_H_

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"

namespace pmubench::testing {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every test here counts real events (or checks what a counting run
    // prints): where this user may not open perf events at all, skip.
    PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
    ASSERT_FALSE(CasesBinary().empty())
        << "pass --e2e_cases=PATH to the e2e_cases binary";
    dir_ = MakePrivateDir(::testing::TempDir() + "pmubench_e2e_");
    ASSERT_FALSE(dir_.empty()) << "mkdtemp in " << ::testing::TempDir();
  }
  void TearDown() override { RemoveDirAndFiles(dir_); }

  // Runs the cases binary with `args` (shell words).
  Result RunCases(const std::string& args) {
    return RunShell(
        "'" + CasesBinary() + "' " + args,
        dir_ + "/../pmubench_e2e_stdout_" + std::to_string(getpid()));
  }

  std::string dir_;
};

// A core PMU under sysfs: x86 "cpu"/"cpu_core", arm64 "armv8_*"/"armv9_*".
inline bool HasHardwarePmu() {
  if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
      access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0) {
    return true;
  }
  DIR* dir = opendir("/sys/bus/event_source/devices");
  if (dir == nullptr) return false;
  bool found = false;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    found =
        found || name.rfind("armv8_", 0) == 0 || name.rfind("armv9_", 0) == 0;
  }
  closedir(dir);
  return found;
}

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

inline constexpr char kSoftware[] = "task-clock,page-faults,context-switches";

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_E2E_FIXTURE_H_
