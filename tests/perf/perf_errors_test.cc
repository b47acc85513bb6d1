// perf_event_open failures turned into statuses that name the fix.
#include "framework/perf/counting/perf_errors.h"

#include <linux/perf_event.h>

#include <cerrno>
#include <string>
#include <vector>

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

ResolvedEvent Generic(const char* spec, uint64_t config, std::string core) {
  ResolvedEvent e;
  e.spec = spec;
  e.type = PERF_TYPE_HARDWARE;
  e.config = config;
  e.needs_hardware_pmu = true;
  e.core_pmu = std::move(core);
  return e;
}

TEST(PerfErrorsTest, ErrorStateAdviceNeverNamesAFixedCounterEvent) {
  // arm64: seven instructions events and cycles, which has PMCCNTR_EL0.
  std::vector<ResolvedEvent> arm(
      7, Generic("instructions", PERF_COUNT_HW_INSTRUCTIONS, "armv8_pmuv3"));
  arm.push_back(Generic("cycles", PERF_COUNT_HW_CPU_CYCLES, "armv8_pmuv3"));
  const absl::Status s = GroupErrorStateError(arm, Arch::kArm64, std::nullopt);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("error state"));
  EXPECT_THAT(s.message(), HasSubstr("e.g. \"instructions\""));
  EXPECT_THAT(s.message(), Not(HasSubstr("e.g. \"cycles\"")));
  EXPECT_THAT(s.message(), HasSubstr("PMCR_EL0"));
  EXPECT_THAT(s.message(), HasSubstr("counters available"));

  // x86: cycles, instructions and ref-cycles may sit on fixed counters.
  const std::vector<ResolvedEvent> x86 = {
      Generic("cycles", PERF_COUNT_HW_CPU_CYCLES, "cpu"),
      Generic("branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "cpu"),
      Generic("instructions", PERF_COUNT_HW_INSTRUCTIONS, "cpu"),
      Generic("ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "cpu")};
  const absl::Status t = GroupErrorStateError(x86, Arch::kX86_64, 4);
  EXPECT_THAT(t.message(), HasSubstr("e.g. \"branch-misses\""));
  EXPECT_THAT(t.message(), HasSubstr("4 general-purpose counters"));
  EXPECT_THAT(t.message(), HasSubstr("{cycles,branch-misses,instructions,"
                                     "ref-cycles}"));
}

TEST(PerfErrorsTest, FixedCounterEventsPerArchitecture) {
  const ResolvedEvent cycles =
      Generic("cycles", PERF_COUNT_HW_CPU_CYCLES, "armv8_pmuv3");
  const ResolvedEvent instructions =
      Generic("instructions", PERF_COUNT_HW_INSTRUCTIONS, "cpu");
  EXPECT_TRUE(MayUseFixedCounter(cycles, Arch::kArm64));
  EXPECT_FALSE(MayUseFixedCounter(instructions, Arch::kArm64));
  EXPECT_TRUE(MayUseFixedCounter(instructions, Arch::kX86_64));
  ResolvedEvent alias;  // armv8_pmuv3/cpu_cycles/: event 0x11 on its PMU
  alias.spec = "armv8_pmuv3/cpu_cycles/";
  alias.type = 8;
  alias.config = 0x11;
  alias.core_pmu = "armv8_pmuv3";
  EXPECT_TRUE(MayUseFixedCounter(alias, Arch::kArm64));
  alias.config = 0x08;
  EXPECT_FALSE(MayUseFixedCounter(alias, Arch::kArm64));
  // On a hybrid machine the PMU type sits in bits 32-63 of config.
  ResolvedEvent hybrid = cycles;
  hybrid.config |= uint64_t{9} << PERF_PMU_TYPE_SHIFT;
  EXPECT_TRUE(MayUseFixedCounter(hybrid, Arch::kArm64));
}

TEST(PerfErrorsTest, ModifierOnAPmuWithoutExcludeBitsNamesWhatToDrop) {
  ResolvedEvent tsc;
  tsc.spec = "msr/tsc/:k";
  tsc.pmu_name = "msr";
  const absl::Status s = ModifierNotSeparableError(tsc);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"msr/tsc/:k\""));
  EXPECT_THAT(s.message(),
              HasSubstr("PMU msr cannot separate user and kernel"));
  EXPECT_THAT(s.message(), HasSubstr("drop ':k' (write msr/tsc/)"));
}

}  // namespace
}  // namespace pmubench::perf
