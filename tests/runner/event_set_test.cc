// The pure rules of event_set.h: which derived metrics a list allows, and
// how a spec list becomes an EventSet.
#include "framework/runner/plan/event_set.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Names(const std::vector<DerivedMetric>& metrics) {
  std::vector<std::string> names;
  for (const DerivedMetric& m : metrics) names.push_back(m.name);
  return names;
}

TEST(DeriveMetricsTest, DefaultHardwareSetGivesIpcAndBranchMissRatio) {
  const std::vector<DerivedMetric> derived =
      DeriveMetrics({"cycles", "instructions", "branches", "branch-misses"});
  ASSERT_THAT(Names(derived), ElementsAre("IPC", "branch-miss-ratio"));
  EXPECT_EQ(derived[0].numerator, 1);    // instructions
  EXPECT_EQ(derived[0].denominator, 0);  // cycles
  EXPECT_EQ(derived[1].numerator, 3);    // branch-misses
  EXPECT_EQ(derived[1].denominator, 2);  // branches
}

TEST(DeriveMetricsTest, CacheEventsGiveMissRatios) {
  const std::vector<DerivedMetric> derived = DeriveMetrics(
      {"L1-dcache-loads", "L1-dcache-load-misses", "cache-references",
       "cache-misses", "dTLB-load-misses", "dTLB-loads", "LLC-load-misses"});
  EXPECT_THAT(Names(derived),
              ElementsAre("L1-dcache-load-miss-ratio", "cache-miss-ratio",
                          "dTLB-load-miss-ratio"));
  EXPECT_EQ(derived[0].numerator, 1);
  EXPECT_EQ(derived[0].denominator, 0);
  EXPECT_EQ(derived[2].numerator, 4);
  EXPECT_EQ(derived[2].denominator, 5);
}

// perf list hwcache spells the prefetch pair L1-dcache-prefetches /
// L1-dcache-prefetch-misses (not "...-prefetchs").
TEST(DeriveMetricsTest, PrefetchMissRatioUsesThePrefetchesName) {
  const std::vector<DerivedMetric> derived =
      DeriveMetrics({"L1-dcache-prefetches", "L1-dcache-prefetch-misses"});
  ASSERT_THAT(Names(derived), ElementsAre("L1-dcache-prefetch-miss-ratio"));
  EXPECT_EQ(derived[0].numerator, 1);
  EXPECT_EQ(derived[0].denominator, 0);
}

TEST(DeriveMetricsTest, NoMetricWithoutBothInputs) {
  EXPECT_THAT(DeriveMetrics({"instructions", "branches", "LLC-load-misses",
                             "task-clock", "page-faults"}),
              IsEmpty());
  EXPECT_THAT(DeriveMetrics({}), IsEmpty());
}

TEST(DeriveMetricsTest, ModifiersMustMatchAndAreKept) {
  EXPECT_THAT(Names(DeriveMetrics({"cycles:u", "instructions:u"})),
              ElementsAre("IPC:u"));
  EXPECT_THAT(DeriveMetrics({"cycles", "instructions:u"}), IsEmpty());
  // A vendor event name's colon is not a modifier.
  EXPECT_THAT(DeriveMetrics({"INST_RETIRED:ANY_P", "cycles"}), IsEmpty());
}

class MakeEventSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
    ASSERT_TRUE(pmus.ok()) << pmus.status();
    pmus_ = *std::move(pmus);
  }
  perf::PmuRegistry pmus_;
};

TEST_F(MakeEventSetTest, KeepsSpellingAndOrder) {
  absl::StatusOr<EventSet> set =
      MakeEventSet("page-faults,task-clock", pmus_, {});
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->size(), 2);
  EXPECT_EQ(set->events[0].spec, "page-faults");
  EXPECT_EQ(set->events[1].spec, "task-clock");
  EXPECT_EQ(set->SpecList(), "page-faults,task-clock");
}

TEST_F(MakeEventSetTest, KeyDependsOnEventsAndOptions) {
  perf::GroupOptions no_rdpmc;
  no_rdpmc.use_rdpmc = false;
  absl::StatusOr<EventSet> a = MakeEventSet("page-faults", pmus_, {});
  absl::StatusOr<EventSet> b = MakeEventSet("page-faults", pmus_, no_rdpmc);
  absl::StatusOr<EventSet> c = MakeEventSet("task-clock", pmus_, {});
  absl::StatusOr<EventSet> a2 = MakeEventSet("page-faults", pmus_, {});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && a2.ok());
  EXPECT_NE(a->key, b->key);
  EXPECT_NE(a->key, c->key);
  EXPECT_EQ(a->key, a2->key);
}

TEST_F(MakeEventSetTest, RejectsDuplicatesEmptyAndUnknown) {
  absl::StatusOr<EventSet> twice =
      MakeEventSet("page-faults,page-faults", pmus_, {});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("twice"));
  EXPECT_FALSE(MakeEventSet("", pmus_, {}).ok());
  absl::StatusOr<EventSet> unknown = MakeEventSet("page-fautls", pmus_, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("page-fautls"));
}

}  // namespace
}  // namespace pmubench::internal
