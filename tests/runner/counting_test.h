// What the in-process runner tests share: the software events they count
// by default, Prepare that fails the test on error, and a fixture that skips,
// saying why, where this user may not open perf events.
#ifndef PMUBENCH_TESTS_RUNNER_COUNTING_TEST_H_
#define PMUBENCH_TESTS_RUNNER_COUNTING_TEST_H_

#include "absl/status/statusor.h"
#include "framework/perf/events/pmu.h"
#include "framework/runner/session/session.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"

namespace pmubench::testing {

inline constexpr char kSoftware[] = "task-clock,page-faults,context-switches";

inline SessionInfo PrepareOrDie(const RunOptions& options) {
  absl::StatusOr<SessionInfo> info = Prepare(options);
  EXPECT_TRUE(info.ok()) << info.status();
  return info.ok() ? *info : SessionInfo{};
}

inline bool MachineHasHardwarePmu() {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  return pmus.ok() && pmus->HasHardwarePmu();
}

// Every test of it counts real events: where this user may not open perf
// events at all, they skip with the reason.
class CountingTest : public ::testing::Test {
 protected:
  void SetUp() override { PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED(); }
};

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_COUNTING_TEST_H_
