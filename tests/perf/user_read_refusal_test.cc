// The read(2)-fallback notice names the knob of the architecture it runs on.
#include "framework/perf/counting/user_read_refusal.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

UserReadFacts Arm64(std::optional<int> perf_user_access) {
  UserReadFacts f;
  f.arch = Arch::kArm64;
  f.spec = "instructions";
  f.core_pmu = "armv8_pmuv3";
  f.user_read_term_set = true;
  f.perf_user_access = perf_user_access;
  f.cap_user_rdpmc = 1;  // what the guest shows with the sysctl at 0
  f.index = 0;
  return f;
}

TEST(UserReadTest, Arm64WithTheSysctlOffNamesPerfUserAccess) {
  const std::string why = UserReadRefusalReason(Arm64(0));
  EXPECT_THAT(why, HasSubstr("'instructions' is read with read(2)"));
  EXPECT_THAT(why, HasSubstr("/proc/sys/kernel/perf_user_access = 0"));
  EXPECT_THAT(why, HasSubstr("`sysctl kernel.perf_user_access=1`"));
  EXPECT_THAT(why, Not(HasSubstr("/rdpmc")));
}

TEST(UserReadTest, Arm64OtherRefusals) {
  EXPECT_THAT(UserReadRefusalReason(Arm64(std::nullopt)),
              HasSubstr("Linux 5.17"));
  UserReadFacts no_term = Arm64(1);
  no_term.user_read_term_set = false;
  EXPECT_THAT(UserReadRefusalReason(no_term),
              HasSubstr("armv8_pmuv3 has no format/rdpmc term"));
  // Sysctl on and term set, yet no counter index: say what the page held.
  EXPECT_THAT(UserReadRefusalReason(Arm64(1)),
              HasSubstr("cap_user_rdpmc = 1, index = 0"));
}

TEST(UserReadTest, X86WithRdpmcOffNamesTheSysfsFile) {
  UserReadFacts f;
  f.arch = Arch::kX86_64;
  f.spec = "cycles";
  f.core_pmu = "cpu";
  f.x86_rdpmc = 0;
  const std::string why = UserReadRefusalReason(f);
  EXPECT_THAT(why, HasSubstr("/sys/bus/event_source/devices/cpu/rdpmc = 0"));
  EXPECT_THAT(why,
              HasSubstr("`echo 1 > /sys/bus/event_source/devices/cpu/rdpmc`"));
  EXPECT_THAT(why, HasSubstr("or 2"));
  EXPECT_THAT(why, Not(HasSubstr("perf_user_access")));
  f.core_pmu = "cpu_core";
  EXPECT_THAT(UserReadRefusalReason(f), HasSubstr("devices/cpu_core/rdpmc"));
}

TEST(UserReadTest, UnmappedPageIsSaidOnEveryArchitecture) {
  UserReadFacts f = Arm64(1);
  f.page_mapped = false;
  EXPECT_THAT(UserReadRefusalReason(f), HasSubstr("mmap"));
}

}  // namespace
}  // namespace pmubench::perf
