// --pmubench_list_events: which candidates are listed, and how probe results
// are grouped and formatted (synthetic probes; one real probe of software
// events where perf events may be opened).
#include "framework/runner/cli/event_list.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"
#include "tests/perf/synthetic_sysfs.h"

namespace pmubench::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ProbedEvent Counted(const std::string& name, EventGroup group,
                    const std::string& pmu = "") {
  return {{name, group, pmu}, true, ""};
}

ProbedEvent Refused(const std::string& name, EventGroup group,
                    const std::string& reason) {
  return {{name, group, ""}, false, reason};
}

TEST(ListCandidatesTest, NamedEventsAndSysfsAliasesWithoutDummy) {
  const perf::PmuRegistry empty = *perf::PmuRegistry::Load("/nonexistent");
  const std::vector<EventCandidate> candidates = ListCandidates(empty);
  auto has = [&](const std::string& name) {
    return std::any_of(candidates.begin(), candidates.end(),
                       [&](const EventCandidate& c) { return c.name == name; });
  };
  EXPECT_TRUE(has("cycles"));
  EXPECT_TRUE(has("L1-dcache-load-misses"));
  EXPECT_TRUE(has("task-clock"));
  EXPECT_FALSE(has("dummy"));
  EXPECT_FALSE(has("bpf-output"));
  for (const EventCandidate& c : candidates) {
    if (c.name == "cycles") {
      EXPECT_EQ(c.group, EventGroup::kHardware);
    }
    if (c.name == "L1-dcache-loads") {
      EXPECT_EQ(c.group, EventGroup::kHardwareCache);
    }
    if (c.name == "page-faults") {
      EXPECT_EQ(c.group, EventGroup::kSoftware);
    }
  }
}

TEST(ListCandidatesTest, SysfsAliasesAsPmuSlashAlias) {
  perf::SyntheticSysfs sysfs;
  sysfs.AddPmu("msr", 9, {{"event", "config:0-63"}}, {{"tsc", "event=0x00"}});
  const perf::PmuRegistry pmus = *perf::PmuRegistry::Load(sysfs.root());
  const std::vector<EventCandidate> candidates = ListCandidates(pmus);
  auto it = std::find_if(
      candidates.begin(), candidates.end(),
      [](const EventCandidate& c) { return c.name == "msr/tsc/"; });
  ASSERT_NE(it, candidates.end());
  EXPECT_EQ(it->group, EventGroup::kPmu);
  EXPECT_EQ(it->pmu, "msr");
}

TEST(FormatEventListTest, GroupedAsPerfListWithRefusedApart) {
  const std::string text = FormatEventList({
      Counted("cycles", EventGroup::kHardware),
      Refused("branches", EventGroup::kHardware, "ENOENT"),
      Counted("L1-dcache-loads", EventGroup::kHardwareCache),
      Refused("L1-icache-prefetches", EventGroup::kHardwareCache, "EOPNOTSUPP"),
      Counted("task-clock", EventGroup::kSoftware),
      Counted("page-faults", EventGroup::kSoftware),
      Counted("msr/tsc/", EventGroup::kPmu, "msr"),
      Refused("LLC-loads", EventGroup::kHardwareCache, "ENOENT"),
  });
  const size_t hw = text.find("Hardware events:\n  cycles\n");
  const size_t cache = text.find("Hardware cache events:\n  L1-dcache-loads\n");
  const size_t sw =
      text.find("Software events:\n  task-clock\n  page-faults\n");
  const size_t pmu = text.find(
      "PMU events (pmu/alias/, from sysfs):\n"
      "  msr:\n    msr/tsc/\n");
  const size_t refused = text.find("Cannot be counted on this machine");
  ASSERT_NE(hw, std::string::npos) << text;
  ASSERT_NE(cache, std::string::npos) << text;
  ASSERT_NE(sw, std::string::npos) << text;
  ASSERT_NE(pmu, std::string::npos) << text;
  ASSERT_NE(refused, std::string::npos) << text;
  EXPECT_LT(hw, cache);
  EXPECT_LT(cache, sw);
  EXPECT_LT(sw, pmu);
  EXPECT_LT(pmu, refused);
  // Refused names only below, grouped by errno in order of first appearance.
  EXPECT_EQ(text.find("branches"), text.find("    branches, LLC-loads\n") + 4);
  EXPECT_LT(text.find("  ENOENT"), text.find("  EOPNOTSUPP"));
  EXPECT_THAT(text, HasSubstr("    L1-icache-prefetches\n"));
  EXPECT_THAT(text, HasSubstr("5 of 8 events can be counted"));
  EXPECT_THAT(text, HasSubstr("split into groups that\ntake turns"));
}

TEST(FormatEventListTest, EmptySectionsAreLeftOut) {
  const std::string text = FormatEventList({
      Refused("cycles", EventGroup::kHardware, "ENOENT"),
      Counted("task-clock", EventGroup::kSoftware),
  });
  EXPECT_THAT(text, Not(HasSubstr("Hardware events:")));
  EXPECT_THAT(text, Not(HasSubstr("PMU events")));
  EXPECT_THAT(text, HasSubstr("Software events:\n  task-clock\n"));
  EXPECT_THAT(text,
              HasSubstr("  ENOENT (no PMU here counts it):\n    cycles\n"));
}

TEST(FormatEventListTest, LongListsWrapBeforeColumn80) {
  std::vector<ProbedEvent> probed;
  for (int i = 0; i < 30; ++i) {
    probed.push_back(Refused("some-long-event-name-" + std::to_string(i),
                             EventGroup::kHardwareCache, "ENOENT"));
  }
  const std::string text = FormatEventList(probed);
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    EXPECT_LE(end - start, 79u) << text.substr(start, end - start);
    start = end + 1;
  }
}

TEST(ProbeEventsTest, SoftwareEventsOpenAndUnknownAliasesDoNot) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  const perf::PmuRegistry pmus = *perf::PmuRegistry::Load();
  const std::vector<ProbedEvent> probed =
      ProbeEvents({{"task-clock", EventGroup::kSoftware, ""},
                   {"nosuchpmu/nosuchevent/", EventGroup::kPmu, "nosuchpmu"}},
                  pmus);
  ASSERT_EQ(probed.size(), 2u);
  EXPECT_TRUE(probed[0].counted) << probed[0].reason;
  EXPECT_FALSE(probed[1].counted);
  EXPECT_THAT(probed[1].reason, HasSubstr("unresolved"));
}

}  // namespace
}  // namespace pmubench::internal
