// ProbeSet (probe.h) with real software events: a set opened, checked,
// calibrated and closed, the events a PMU lacks named, and a set too big
// for one group split into groups that each open.
#include "framework/runner/session/probe.h"

#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "framework/perf/events/pmu.h"
#include "framework/runner/measure/thread_groups.h"
#include "framework/runner/plan/event_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/counting_test.h"
#include "tests/runner/perf_fds.h"

namespace pmubench {
namespace {

using ::pmubench::testing::OpenPerfFds;

using ProbeTest = ::pmubench::testing::CountingTest;

TEST_F(ProbeTest, ProbeClosesItsGroupAndReportsFacts) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet("task-clock,page-faults", *pmus, {});
  ASSERT_TRUE(set.ok());
  internal::CloseThreadGroup();
  const internal::SetProbe probe = internal::ProbeSet(*set);
  ASSERT_TRUE(probe.status.ok()) << probe.status;
  EXPECT_EQ(OpenPerfFds(), 0);
  ASSERT_EQ(probe.opened.size(), 2u);
  EXPECT_EQ(probe.opened[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
  EXPECT_GT(probe.overhead[0], 0.0) << "task-clock of an empty start/stop";
}

// The real answer of a machine without a hardware PMU: cycles is NotFound
// at open, and the probe names it alone.
TEST_F(ProbeTest, ProbeNamesTheEventThePmuLacks) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  if (pmus->HasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a hardware PMU: cycles can be counted";
  }
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet("page-faults,cycles,task-clock", *pmus, {});
  ASSERT_TRUE(set.ok());
  const internal::SetProbe probe = internal::ProbeSet(*set);
  EXPECT_TRUE(absl::IsNotFound(probe.status)) << probe.status;
  EXPECT_THAT(probe.not_found, ::testing::ElementsAre(1));
  EXPECT_EQ(OpenPerfFds(), 0);
}

// More events than one group holds (CounterGroup::Open refuses more than
// perf::kMaxGroupEvents, as a PMU refuses more than it has counters): the
// probe finds groups that open, probes each, and reports every event's
// facts and overhead in the set's order.
TEST_F(ProbeTest, ASetTooBigForOneGroupIsSplitIntoGroupsThatOpen) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  std::vector<std::string> specs;
  for (const char* name :
       {"task-clock", "cpu-clock", "page-faults", "minor-faults",
        "major-faults", "context-switches", "cpu-migrations",
        "alignment-faults", "emulation-faults"}) {
    specs.push_back(name);
    specs.push_back(std::string(name) + ":u");
  }
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet(absl::StrJoin(specs, ","), *pmus, {});
  ASSERT_TRUE(set.ok()) << set.status();
  internal::CloseThreadGroup();
  const internal::SetProbe probe = internal::ProbeSet(*set);
  ASSERT_TRUE(probe.status.ok()) << probe.status;
  ASSERT_EQ(probe.groups.size(), 2u);
  EXPECT_EQ(probe.groups[0].size(), 16u);
  EXPECT_THAT(probe.groups[1], ::testing::ElementsAre(16, 17));
  ASSERT_EQ(probe.opened.size(), specs.size());
  EXPECT_EQ(probe.opened[17].event.spec, "emulation-faults:u");
  EXPECT_EQ(probe.opened[6].attr.config, PERF_COUNT_SW_PAGE_FAULTS_MIN);
  EXPECT_GT(probe.overhead[0], 0.0) << "task-clock of an empty start/stop";
  EXPECT_EQ(OpenPerfFds(), 0);
}

}  // namespace
}  // namespace pmubench
