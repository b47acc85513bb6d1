// SplitToFit (group_split.h) on models of PMUs: general-purpose counters,
// fixed counters, a hybrid machine's two core PMUs, a watchdog-held counter.
// The model answers "does this group fit" as the kernel would for a pinned
// group: every event of one PMU, the fixed-counter events on their own
// counters, the rest on the general-purpose ones.
#include "framework/runner/plan/group_split.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct ModelPmu {
  int general = 4;              // general-purpose counters
  std::set<std::string> fixed;  // events with a counter of their own
  // Events of the second core PMU of a hybrid machine (named "atom/...").
  bool hybrid = false;

  bool Fits(const std::vector<std::string>& names,
            const std::vector<int>& group) const {
    int general_needed = 0;
    std::set<bool> pmus;
    for (int i : group) {
      pmus.insert(names[i].rfind("atom/", 0) == 0);
      if (fixed.count(names[i]) == 0) ++general_needed;
    }
    return general_needed <= general && (!hybrid || pmus.size() <= 1);
  }
};

ModelPmu Pmu(int general, std::set<std::string> fixed = {},
             bool hybrid = false) {
  return ModelPmu{general, std::move(fixed), hybrid};
}

struct Split {
  std::vector<std::string> names;
  GroupSplit split;
  int asked = 0;  // how often the model was asked

  std::vector<std::vector<std::string>> Groups() const {
    std::vector<std::vector<std::string>> out;
    for (const std::vector<int>& group : split.groups) {
      out.emplace_back();
      for (int i : group) out.back().push_back(names[i]);
    }
    return out;
  }
};

Split SplitOn(const ModelPmu& pmu, std::vector<std::string> names,
              int max_group_size = 16) {
  Split result{std::move(names), {}, 0};
  const std::vector<DerivedMetric> derived = DeriveMetrics(result.names);
  result.split = SplitToFit(
      static_cast<int>(result.names.size()), derived,
      [&](const std::vector<int>& group) {
        ++result.asked;
        return pmu.Fits(result.names, group);
      },
      max_group_size);
  return result;
}

using Names = std::vector<std::string>;

TEST(SplitToFitTest, ASetThatFitsStaysOneGroup) {
  const Split s =
      SplitOn(Pmu(4), {"cycles", "instructions", "branches", "r08"});
  EXPECT_THAT(s.Groups(),
              ElementsAre(Names{"cycles", "instructions", "branches", "r08"}));
  EXPECT_THAT(s.split.underived, IsEmpty());
  EXPECT_FALSE(s.split.unfit.has_value());
}

TEST(SplitToFitTest, TwoCountersGiveGroupsOfTwoWithPairsKeptTogether) {
  const Split s =
      SplitOn(Pmu(2), {"cycles", "instructions", "branches", "branch-misses",
                       "L1-dcache-loads", "L1-dcache-load-misses", "r11"});
  EXPECT_THAT(s.Groups(),
              ElementsAre(Names{"cycles", "instructions"},
                          Names{"branches", "branch-misses"},
                          Names{"L1-dcache-loads", "L1-dcache-load-misses"},
                          Names{"r11"}));
  EXPECT_THAT(s.split.underived, IsEmpty());
}

TEST(SplitToFitTest, FourCountersFirstFitFillsTheFirstGroup) {
  const Split s = SplitOn(Pmu(4), {"r08", "r11", "r1b", "r04", "r03", "r10",
                                   "r12", "r16", "r17", "r13"});
  EXPECT_THAT(s.Groups(), ElementsAre(Names{"r08", "r11", "r1b", "r04"},
                                      Names{"r03", "r10", "r12", "r16"},
                                      Names{"r17", "r13"}));
}

// The emulated arm64 PMU: 6 event counters and the cycle counter. Ten events
// (instructions, cycles and eight raw ones) need two groups, cycles on its
// own counter in the first.
TEST(SplitToFitTest, SixCountersAndACycleCounterTakeTenEventsInTwoGroups) {
  const Split s =
      SplitOn(Pmu(6, {"cycles"}), {"instructions", "cycles", "r08", "r11",
                                   "r1b", "r04", "r03", "r10", "r12", "r16"});
  EXPECT_THAT(s.Groups(), ElementsAre(Names{"instructions", "cycles", "r08",
                                            "r11", "r1b", "r04", "r03"},
                                      Names{"r10", "r12", "r16"}));
  EXPECT_THAT(s.split.underived, IsEmpty());
}

// x86: cycles, instructions and ref-cycles have fixed counters, so they join
// whichever group has room for them: the first, even when they come last.
TEST(SplitToFitTest, FixedCounterEventsJoinTheFirstGroup) {
  const Split s =
      SplitOn(Pmu(2, {"cycles", "instructions", "ref-cycles"}),
              {"branches", "branch-misses", "cache-references", "cache-misses",
               "ref-cycles", "cycles", "instructions"});
  EXPECT_THAT(s.Groups(),
              ElementsAre(Names{"branches", "branch-misses", "ref-cycles",
                                "cycles", "instructions"},
                          Names{"cache-references", "cache-misses"}));
}

TEST(SplitToFitTest, APairThatCannotShareAGroupIsNotDerived) {
  const Split s = SplitOn(Pmu(1), {"branches", "branch-misses", "r08"});
  EXPECT_THAT(s.Groups(), ElementsAre(Names{"branches"}, Names{"branch-misses"},
                                      Names{"r08"}));
  EXPECT_THAT(s.split.underived, ElementsAre("branch-miss-ratio"));
  EXPECT_FALSE(s.split.unfit.has_value());
}

TEST(SplitToFitTest, AnEventThatFitsNowhereAloneIsNamed) {
  const ModelPmu none = Pmu(0, {"cycles"});
  const Split s = SplitOn(none, {"cycles", "r08", "r11"});
  ASSERT_TRUE(s.split.unfit.has_value());
  EXPECT_EQ(s.names[*s.split.unfit], "r08");
  EXPECT_THAT(s.split.groups, IsEmpty());
}

// A hybrid machine: events of the two core PMUs never share a group.
TEST(SplitToFitTest, HybridPmusGetGroupsOfTheirOwn) {
  const Split s =
      SplitOn(Pmu(8, {}, /*hybrid=*/true),
              {"cycles", "atom/cycles", "instructions", "atom/instructions"});
  EXPECT_THAT(s.Groups(),
              ElementsAre(Names{"cycles", "instructions"},
                          Names{"atom/cycles", "atom/instructions"}));
}

TEST(SplitToFitTest, NoGroupHoldsMoreThanTheLimit) {
  Names many;
  for (int i = 0; i < 20; ++i) many.push_back("r" + std::to_string(10 + i));
  const Split s = SplitOn(Pmu(100), many, /*max_group_size=*/16);
  ASSERT_EQ(s.split.groups.size(), 2u);
  EXPECT_EQ(s.split.groups[0].size(), 16u);
  EXPECT_EQ(s.split.groups[1].size(), 4u);
}

// Learned, not assumed: a counter held by the NMI watchdog leaves three of
// four, and the split follows.
TEST(SplitToFitTest, ACounterHeldElsewhereShowsInTheAnswer) {
  const Split s = SplitOn(Pmu(3), {"r08", "r11", "r1b", "r04", "r03", "r10"});
  EXPECT_THAT(s.Groups(), ElementsAre(Names{"r08", "r11", "r1b"},
                                      Names{"r04", "r03", "r10"}));
  EXPECT_LT(s.asked, 20);  // first fit asks a few questions per event
}

TEST(GroupOfTest, AGroupDerivesOnlyFromItsOwnEvents) {
  EventSet set;
  for (const char* spec :
       {"cycles", "instructions", "branches", "branch-misses"}) {
    perf::ResolvedEvent e;
    e.spec = spec;
    set.events.push_back(e);
  }
  set.derived =
      DeriveMetrics({"cycles", "instructions", "branches", "branch-misses"});
  const EventSet first = GroupOf(set, {0, 1});
  EXPECT_EQ(first.SpecList(), "cycles,instructions");
  ASSERT_EQ(first.derived.size(), 1u);
  EXPECT_EQ(first.derived[0].name, "IPC");
}

}  // namespace
}  // namespace pmubench::internal
