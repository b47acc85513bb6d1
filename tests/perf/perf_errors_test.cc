// perf_event_open failures turned into statuses that name the fix.
#include "framework/perf/perf_errors.h"

#include <linux/perf_event.h>

#include <cerrno>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ResolvedEvent Branches(std::string core_pmu) {
  ResolvedEvent e;
  e.spec = "branches";
  e.pmu_name = "hardware";
  e.type = PERF_TYPE_HARDWARE;
  e.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
  e.needs_hardware_pmu = true;
  e.core_pmu = std::move(core_pmu);
  return e;
}

TEST(PerfErrorsTest, MissingEventOnACorePmuIsNotAMissingPmu) {
  for (int err : {ENOENT, EOPNOTSUPP}) {
    const absl::Status s = PerfOpenError(err, Branches("armv8_pmuv3"), 0, 2);
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(s.message(),
                HasSubstr("the core PMU (armv8_pmuv3) does not count "
                          "'branches'"));
    EXPECT_THAT(s.message(),
                HasSubstr("/sys/bus/event_source/devices/armv8_pmuv3/events"));
    EXPECT_THAT(s.message(), Not(HasSubstr("no hardware PMU")));
  }
}

TEST(PerfErrorsTest, HardwareEventWithoutACorePmuSaysThereIsNone) {
  const absl::Status s = PerfOpenError(ENOENT, Branches(""), 0, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no hardware PMU"));
  EXPECT_THAT(s.message(), HasSubstr("ENOENT"));
}

}  // namespace
}  // namespace pmubench::perf
