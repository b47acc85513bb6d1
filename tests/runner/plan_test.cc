// The planning step (plan.h) on synthetic sysfs trees, so every branch runs
// on every machine: --counters explicit, none, a case's own list, the
// default set, no hardware PMU (software default with a notice), a case's
// own hardware list on a machine without a PMU, the --benchmark_filter, the
// pinning of a hybrid machine, and ApplyProbes' decisions on synthetic probe
// results (events the PMU lacks, refused sets, explicit failures).
#include "framework/runner/plan/plan.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/perf/events/pmu.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/synthetic_sysfs.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::vector<CaseRequest> Cases() {
  return {{"BM_Default", "a.cc", ""},
          {"BM_Own", "a.cc", "page-faults,minor-faults"},
          {"BM_OwnHardware", "b.cc", "instructions,cycles,task-clock"},
          {"BM_Off", "b.cc", "none"},
          {"BM_Default2", "b.cc", ""}};
}

class PlanTest : public ::testing::Test {
 protected:
  perf::PmuRegistry Load() {
    absl::StatusOr<perf::PmuRegistry> pmus =
        perf::PmuRegistry::Load(sysfs_.root());
    EXPECT_TRUE(pmus.ok()) << pmus.status();
    return pmus.ok() ? *std::move(pmus) : perf::PmuRegistry();
  }
  Plan MakeOrDie(const RunOptions& options) {
    registry_ = Load();
    absl::StatusOr<Plan> plan = MakePlan(Cases(), options, registry_);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? *std::move(plan) : Plan();
  }
  std::string SetOf(const Plan& plan, int case_index) {
    const int s = plan.case_set[case_index];
    return s == kNoSet ? "none" : plan.sets[s].set.SpecList();
  }

  perf::SyntheticSysfs sysfs_;
  perf::PmuRegistry registry_;
};

class WithPmu : public PlanTest {
 protected:
  void SetUp() override { sysfs_.AddIntelLikeMachine(); }
};

class WithoutPmu : public PlanTest {
 protected:
  void SetUp() override { sysfs_.AddPmu("software", 1, {}); }
};

TEST_F(WithPmu, ExplicitCountersApplyToEveryCase) {
  const Plan plan = MakeOrDie({.counters = "task-clock,cycles"});
  ASSERT_THAT(plan.sets, SizeIs(1));
  EXPECT_TRUE(plan.sets[0].is_explicit);
  EXPECT_EQ(plan.sets[0].origin, "--counters=task-clock,cycles");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(SetOf(plan, i), "task-clock,cycles");
  EXPECT_THAT(plan.notices, IsEmpty());
}

TEST_F(WithPmu, CountersNoneCountsNothing) {
  const Plan plan = MakeOrDie({.counters = " none "});
  EXPECT_THAT(plan.sets, IsEmpty());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(SetOf(plan, i), "none");
}

TEST_F(WithPmu, OwnListsDefaultSetAndOwnNone) {
  const Plan plan = MakeOrDie({});
  EXPECT_EQ(SetOf(plan, 0), kHardwareDefaultEvents);
  EXPECT_EQ(SetOf(plan, 1), "page-faults,minor-faults");
  EXPECT_EQ(SetOf(plan, 2), "instructions,cycles,task-clock");
  EXPECT_EQ(SetOf(plan, 3), "none");
  EXPECT_EQ(plan.case_set[0], plan.case_set[4]) << "one set, shared";
  const PlannedSet& defaults = plan.sets[plan.case_set[0]];
  EXPECT_TRUE(defaults.is_default);
  EXPECT_FALSE(defaults.is_explicit);
  EXPECT_THAT(defaults.cases, ElementsAre(0, 4));
  EXPECT_THAT(plan.sets[plan.case_set[2]].origin,
              HasSubstr("PMU_BENCHMARK_WITH_COUNTERS(BM_OwnHardware"));
  EXPECT_THAT(plan.notices, IsEmpty());
  EXPECT_TRUE(plan.pinned_cpus.empty()) << "not a hybrid machine";
}

TEST_F(WithoutPmu, DefaultAndOwnHardwareListsFallBackWithOneNotice) {
  const Plan plan = MakeOrDie({});
  EXPECT_EQ(SetOf(plan, 0), kSoftwareDefaultEvents);
  EXPECT_EQ(SetOf(plan, 1), "page-faults,minor-faults") << "no hardware";
  EXPECT_EQ(SetOf(plan, 2), kSoftwareDefaultEvents);
  EXPECT_FALSE(plan.sets[plan.case_set[0]].is_default);
  ASSERT_THAT(plan.notices, SizeIs(1));
  EXPECT_THAT(plan.notices[0], HasSubstr("no hardware PMU"));
  EXPECT_THAT(plan.notices[0], HasSubstr("the default cycles,instructions"));
  EXPECT_THAT(plan.notices[0], HasSubstr("1 case (BM_OwnHardware)"));
}

TEST_F(WithoutPmu, NoNoticeForCasesTheFilterExcludes) {
  const Plan plan = MakeOrDie({.filter = "^BM_Own$"});
  EXPECT_THAT(plan.notices, IsEmpty());
}

TEST_F(WithoutPmu, ExplicitHardwareListIsAnError) {
  registry_ = Load();
  absl::StatusOr<Plan> plan =
      MakePlan(Cases(), {.counters = "cycles"}, registry_);
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(absl::IsNotFound(plan.status()));
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("--counters=cycles: 'cycles' needs a hardware PMU"));
}

TEST_F(WithPmu, BadSpecsNameTheirOrigin) {
  registry_ = Load();
  absl::StatusOr<Plan> bad =
      MakePlan(Cases(), {.counters = "task-clock,no-such"}, registry_);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("--counters=task-clock,no-such: "));
  std::vector<CaseRequest> cases = {{"BM_Typo", "t.cc", "page-fautls"}};
  absl::StatusOr<Plan> typo = MakePlan(cases, {}, registry_);
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(
      std::string(typo.status().message()),
      HasSubstr("PMU_BENCHMARK_WITH_COUNTERS(BM_Typo, \"page-fautls\")"));
}

TEST_F(WithPmu, FilteredOutSetsWillNotRun) {
  const Plan plan = MakeOrDie({.filter = "^BM_Default2/"});
  EXPECT_TRUE(plan.sets[plan.case_set[4]].will_run);
  EXPECT_FALSE(plan.sets[plan.case_set[1]].will_run);
  EXPECT_FALSE(plan.sets[plan.case_set[2]].will_run);
}

TEST(MayRunTest, FollowsBenchmarkFilterSyntax) {
  EXPECT_TRUE(MayRun("BM_A", ""));
  EXPECT_TRUE(MayRun("BM_A", "all"));
  EXPECT_TRUE(MayRun("BM_A", "BM_A"));
  EXPECT_TRUE(MayRun("BM_A", "^BM_A/8/"));
  EXPECT_TRUE(MayRun("BM_A", "^BM_A/iterations:10$"));
  EXPECT_TRUE(MayRun("BM_Touch", "^(BM_Fails|BM_Touch/1/)"));
  EXPECT_TRUE(MayRun("Base/Method", "Base/Method/8"));
  EXPECT_FALSE(MayRun("BM_B", "^BM_A"));
  EXPECT_FALSE(MayRun("BM_B", "^(BM_Fails|BM_Touch/1/)"));
  EXPECT_FALSE(MayRun("BM_A", "-BM_A"));
  EXPECT_TRUE(MayRun("BM_B", "-BM_A"));
  EXPECT_TRUE(MayRun("BM_A", "-BM_A/1$")) << "BM_A/2 still runs";
}

// A machine with cpu_core (CPUs 0-3) and cpu_atom (CPUs 4-7).
TEST_F(PlanTest, HybridMachinePinsHardwareSetsToTheCorePmuCpus) {
  sysfs_.AddPmu("cpu_core", 4, {{"event", "config:0-7"}});
  sysfs_.Write("cpu_core/cpus", "0-3");
  sysfs_.AddPmu("cpu_atom", 10, {{"event", "config:0-7"}});
  sysfs_.Write("cpu_atom/cpus", "4-7");
  sysfs_.AddPmu("software", 1, {});
  const Plan plan = MakeOrDie({});
  EXPECT_EQ(plan.pinned_pmu, "cpu_core");
  EXPECT_THAT(plan.pinned_cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(plan.sets[plan.case_set[0]].set.cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(plan.sets[plan.case_set[1]].set.cpus, IsEmpty())
      << "software events count on every CPU";
  ASSERT_THAT(plan.notices, SizeIs(1));
  EXPECT_THAT(plan.notices[0], HasSubstr("pinned to the CPUs of cpu_core"));
}

TEST_F(PlanTest, HybridMachineWithoutCpuListSaysCountsMayBePartial) {
  sysfs_.AddPmu("cpu_core", 4, {{"event", "config:0-7"}});
  sysfs_.AddPmu("cpu_atom", 10, {{"event", "config:0-7"}});
  const Plan plan = MakeOrDie({});
  EXPECT_TRUE(plan.pinned_cpus.empty());
  ASSERT_THAT(plan.notices, SizeIs(1));
  EXPECT_THAT(plan.notices[0], HasSubstr("pmu_running_fraction"));
}

// --- ApplyProbes ------------------------------------------------------------

SetProbe Ok() { return SetProbe{}; }
SetProbe Failed(absl::Status status, std::vector<int> not_found = {}) {
  SetProbe probe;
  probe.status = std::move(status);
  probe.not_found = std::move(not_found);
  return probe;
}

using Probes = std::vector<std::optional<SetProbe>>;

// The arm64 VM's PMU: no branches, branch-misses (ENOENT at open).
TEST_F(WithPmu, DefaultSetDropsWhatThePmuLacksOnce) {
  Plan plan = MakeOrDie({});
  const int d = plan.case_set[0];
  Probes probes(plan.sets.size());
  probes[d] = Failed(absl::NotFoundError("branches: ENOENT"), {2, 3});
  absl::StatusOr<bool> changed = ApplyProbes(plan, probes);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(SetOf(plan, 0), "cycles,instructions");
  EXPECT_EQ(SetOf(plan, 4), "cycles,instructions");
  EXPECT_FALSE(plan.sets[d].probed) << "the shorter set is probed again";
  ASSERT_THAT(plan.notices, SizeIs(1));
  EXPECT_THAT(plan.notices[0],
              HasSubstr("cannot count branches,branch-misses"));
  EXPECT_THAT(plan.notices[0],
              HasSubstr("the default set counts cycles,instructions"));
  ASSERT_THAT(plan.sets[d].set.derived, SizeIs(1));
  EXPECT_EQ(plan.sets[d].set.derived[0].name, "IPC");

  probes.assign(plan.sets.size(), std::nullopt);
  probes[d] = Ok();
  changed = ApplyProbes(plan, probes);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_THAT(plan.notices, SizeIs(1)) << "named once";
}

TEST_F(WithPmu, OwnEventThePmuLacksIsDroppedForThatCase) {
  Plan plan = MakeOrDie({});
  const int own = plan.case_set[2];
  Probes probes(plan.sets.size());
  probes[own] = Failed(absl::NotFoundError("cycles"), {1});
  ASSERT_TRUE(ApplyProbes(plan, probes).ok());
  EXPECT_EQ(SetOf(plan, 2), "instructions,task-clock");
  EXPECT_EQ(SetOf(plan, 0), kHardwareDefaultEvents) << "other sets unchanged";
  ASSERT_THAT(plan.notices, SizeIs(1));
  EXPECT_THAT(plan.notices[0], HasSubstr("BM_OwnHardware counts "
                                         "instructions,task-clock"));
}

TEST_F(WithPmu, OwnListThePmuLacksWhollyRunsUncounted) {
  Plan plan = MakeOrDie({});
  const int own = plan.case_set[2];
  Probes probes(plan.sets.size());
  probes[own] = Failed(absl::NotFoundError("all"), {0, 1, 2});
  ASSERT_TRUE(ApplyProbes(plan, probes).ok());
  EXPECT_EQ(SetOf(plan, 2), "none");
  ASSERT_THAT(plan.notices, SizeIs(1));
  EXPECT_THAT(plan.notices[0], HasSubstr("run without counters"));
}

TEST_F(WithPmu, ExplicitListThePmuLacksIsAnError) {
  Plan plan = MakeOrDie({.counters = "cycles,branches"});
  Probes probes = {Failed(absl::NotFoundError("branches: ENOENT"), {1})};
  absl::StatusOr<bool> changed = ApplyProbes(plan, probes);
  ASSERT_FALSE(changed.ok());
  EXPECT_TRUE(absl::IsNotFound(changed.status()));
  EXPECT_THAT(std::string(changed.status().message()),
              HasSubstr("--counters=cycles,branches: branches: ENOENT"));
}

TEST_F(WithPmu, EveryRefusedSetAndItsCasesAreNamed) {
  Plan plan = MakeOrDie({});
  Probes probes(plan.sets.size());
  probes[plan.case_set[0]] =
      Failed(absl::PermissionDeniedError("perf_event_paranoid = 3"));
  probes[plan.case_set[1]] = Ok();
  probes[plan.case_set[2]] =
      Failed(absl::PermissionDeniedError("perf_event_paranoid = 3"));
  ASSERT_TRUE(ApplyProbes(plan, probes).ok());
  EXPECT_EQ(SetOf(plan, 0), "none");
  EXPECT_EQ(SetOf(plan, 4), "none");
  EXPECT_EQ(SetOf(plan, 2), "none");
  EXPECT_EQ(SetOf(plan, 1), "page-faults,minor-faults");
  ASSERT_THAT(plan.notices, SizeIs(1));
  const std::string& notice = plan.notices[0];
  EXPECT_THAT(notice, HasSubstr("the default events (cases BM_Default, "
                                "BM_Default2)"));
  EXPECT_THAT(notice, HasSubstr("PMU_BENCHMARK_WITH_COUNTERS(BM_OwnHardware"));
  EXPECT_THAT(notice, HasSubstr("(case BM_OwnHardware)"));
  EXPECT_THAT(notice, HasSubstr("perf_event_paranoid = 3"));
  EXPECT_THAT(notice, HasSubstr("running without counters"));
}

TEST_F(WithPmu, OtherFailuresAreErrorsNamingTheOrigin) {
  Plan plan = MakeOrDie({});
  Probes probes(plan.sets.size());
  probes[plan.case_set[2]] =
      Failed(absl::FailedPreconditionError("pinned group in error state"));
  absl::StatusOr<bool> changed = ApplyProbes(plan, probes);
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(std::string(changed.status().message()),
              HasSubstr("PMU_BENCHMARK_WITH_COUNTERS(BM_OwnHardware"));
}

}  // namespace
}  // namespace pmubench::internal
