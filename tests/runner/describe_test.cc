// The describing step (describe.h): typed facts in, the pmubench_* context
// pairs and the console header out, each read from the facts.
#include "framework/runner/output/describe.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

EventFacts Event(std::string spec, std::string pmu, uint32_t type,
                 uint64_t config, perf::ReadMethod method, bool kernel,
                 bool hardware) {
  EventFacts e;
  e.spec = std::move(spec);
  e.pmu_name = std::move(pmu);
  e.type = type;
  e.config = config;
  e.read_method = method;
  e.counts_kernel = kernel;
  e.needs_hardware_pmu = hardware;
  return e;
}

RunFacts TwoSets() {
  RunFacts facts;
  facts.pmus = {"cpu", "software"};
  SetFacts hw;
  hw.events = {
      Event("cycles", "cpu", 0, 0, perf::ReadMethod::kRdpmc, false, true),
      Event("instructions", "cpu", 0, 1, perf::ReadMethod::kRdpmc, false,
            true)};
  hw.overhead = {30, 12};
  hw.derived = {"IPC"};
  SetFacts sw;
  sw.events = {
      Event("page-faults", "software", 1, 2, perf::ReadMethod::kRead, true,
            false),
      Event("cycles", "cpu", 0, 0, perf::ReadMethod::kRdpmc, false, true)};
  sw.overhead = {0, 31};
  facts.sets = {hw, sw};
  facts.case_files = {{"BM_A", "a"}, {"Base", "b"}};
  return facts;
}

TEST(ContextPairsTest, KeysInOrderAndValuesFromFacts) {
  RunFacts facts = TwoSets();
  facts.notices = {"pmubench: one", "pmubench: two"};
  const auto pairs = ContextPairs(facts);
  std::vector<std::string> keys;
  for (const auto& [key, value] : pairs) keys.push_back(key);
  EXPECT_THAT(
      keys, ElementsAre("pmubench_version", "pmubench_pmus", "pmubench_events",
                        "pmubench_pinned", "pmubench_exclude_kernel",
                        "pmubench_read_overhead", "pmubench_case_files",
                        "pmubench_backend", "pmubench_notice"));
  EXPECT_EQ(pairs[1].second, "cpu,software");
  EXPECT_EQ(pairs[2].second,
            "cycles (pmu=cpu type=0 config=0x0 read=rdpmc kernel=no); "
            "instructions (pmu=cpu type=0 config=0x1 read=rdpmc kernel=no); "
            "page-faults (pmu=software type=1 config=0x2 read=read "
            "kernel=yes)")
      << "each event once";
  EXPECT_EQ(pairs[5].second,
            "cycles=30 instructions=12; page-faults=0 cycles=31");
  EXPECT_EQ(pairs[6].second, "BM_A=a;Base=b");
  EXPECT_EQ(pairs[7].second, "perf_event");
  EXPECT_EQ(pairs[8].second, "pmubench: one pmubench: two") << "one line";
}

std::string ValueOf(
    const std::vector<std::pair<std::string, std::string>>& pairs,
    const std::string& key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return "(absent)";
}

// A set split into groups that take turns: the groups and what they cost
// are in the context and the header; a set that fits has neither.
TEST(ContextPairsTest, SplitSetsNameTheirGroupsAndRunsPerBatch) {
  RunFacts facts = TwoSets();
  EXPECT_EQ(ValueOf(ContextPairs(facts), "pmubench_groups"), "(absent)");
  EXPECT_THAT(ConsoleHeader(facts), Not(HasSubstr("groups")));
  facts.sets[0].groups = {"cycles", "instructions"};
  facts.sets[1].groups = {"page-faults", "cycles", "x"};
  EXPECT_EQ(ValueOf(ContextPairs(facts), "pmubench_groups"),
            "{cycles} {instructions}; {page-faults} {cycles} {x}");
  EXPECT_EQ(ValueOf(ContextPairs(facts), "pmubench_runs_per_batch"), "2; 3");
  EXPECT_THAT(ConsoleHeader(facts), HasSubstr("which take turns"));
  facts.pinned = false;  // --pmubench_multiplex
  EXPECT_EQ(ValueOf(ContextPairs(facts), "pmubench_runs_per_batch"), "1; 1");
  EXPECT_THAT(ConsoleHeader(facts), HasSubstr("multiplexed"));
}

TEST(ContextPairsTest, NothingCountedSaysNone) {
  const auto pairs = ContextPairs(RunFacts{});
  EXPECT_EQ(pairs[2].second, "none");
  EXPECT_EQ(pairs[5].second, "none");
  EXPECT_EQ(pairs[6].second, "none");
  EXPECT_EQ(pairs.size(), 8u) << "no notice key without notices";
}

TEST(ConsoleHeaderTest, ListsSetsReadMethodsOverheadAndNotices) {
  RunFacts facts = TwoSets();
  facts.notices = {"pmubench: a notice"};
  const std::string header = ConsoleHeader(facts);
  EXPECT_THAT(header, HasSubstr("counts per iteration of "
                                "cycles,instructions | page-faults,cycles"));
  EXPECT_THAT(header, HasSubstr("(read in user space (rdpmc): "
                                "cycles,instructions; with read(2): "
                                "page-faults;"));
  EXPECT_THAT(header, Not(HasSubstr("read by")));
  EXPECT_THAT(header, HasSubstr("subtracted per batch (the counts of an empty "
                                "range-for batch through State): cycles=30 "
                                "instructions=12 | page-faults=0 cycles=31\n"));
  EXPECT_THAT(header, HasSubstr("pmubench: a notice\n"));
}

TEST(ConsoleHeaderTest, OneReadMethodInWordsAndOverheadWithUnits) {
  RunFacts facts;
  SetFacts sw;
  sw.events = {Event("task-clock", "software", 1, 1, perf::ReadMethod::kRead,
                     false, false),
               Event("page-faults", "software", 1, 2, perf::ReadMethod::kRead,
                     true, false)};
  sw.overhead = {1234.5, 0};
  facts.sets = {sw};
  const std::string header = ConsoleHeader(facts);
  EXPECT_THAT(header, HasSubstr("(read with read(2);"));
  EXPECT_THAT(header, HasSubstr("task-clock=1.234us page-faults=0\n"));
  facts.sets[0].events[0].read_method = perf::ReadMethod::kRdpmc;
  facts.sets[0].events[1].read_method = perf::ReadMethod::kRdpmc;
  EXPECT_THAT(ConsoleHeader(facts), HasSubstr("(read in user space (rdpmc);"));
}

TEST(ConsoleHeaderTest, CountingOff) {
  EXPECT_THAT(ConsoleHeader(RunFacts{}),
              HasSubstr("counting off (--counters=none, or no "
                        "PMU_BENCHMARK case matches the filter)"));
  RunFacts refused;
  refused.notices = {"pmubench: refused"};
  EXPECT_THAT(ConsoleHeader(refused), Not(HasSubstr("--counters=none")));
}

TEST(CounterNamesTest, EventsDerivedThenRunningFractionEachOnce) {
  EXPECT_THAT(CounterNames(TwoSets()),
              ElementsAre("cycles", "instructions", "IPC", "page-faults",
                          kRunningFractionName));
  EXPECT_THAT(CounterNames(RunFacts{}), ::testing::IsEmpty());
}

TEST(ReadFallbackNoticeTest, OnlyForHardwareEventsReadBySyscall) {
  RunFacts facts = TwoSets();
  EXPECT_EQ(ReadFallbackNotice(facts), "") << "software read(2) is normal";
  facts.sets[0].events[1].read_method = perf::ReadMethod::kRead;
  facts.sets[0].events[1].read_fallback_reason = "kernel.perf_user_access is 0";
  const std::string notice = ReadFallbackNotice(facts);
  EXPECT_THAT(notice, HasSubstr("instructions"));
  EXPECT_THAT(notice, HasSubstr("read(2)"));
  EXPECT_THAT(notice, HasSubstr(": kernel.perf_user_access is 0"));
}

TEST(CaseFilesTest, FamilyOnceWithFileBaseName) {
  EXPECT_THAT(
      CaseFiles({{"BM_X/label", "/src/benches/branch.cc", ""},
                 {"BM_X", "/src/other.cc", ""},
                 {"Base/Method", "containers.cc", "none"}}),
      ElementsAre(std::pair<std::string, std::string>("BM_X", "branch"),
                  std::pair<std::string, std::string>("Base", "containers")));
}

// Where the predictors have no reset (an architecture other than x86-64 or
// arm64), a cache-simulating run says so once and names it in the context;
// with the reset, or without cache simulation, neither appears.
TEST(SimulationFactsTest, PredictorsNotResetAreSaidInNoticeAndContext) {
  RunFacts facts;
  facts.simulation = SimulationFacts{"valgrind-3.19.0",
                                     "I1=32768,8,64 D1=32768,8,64 LL=8,16,64",
                                     {"callgrind/instructions/"},
                                     10};
  EXPECT_EQ(SimulatorResetNotice(*facts.simulation), "");
  EXPECT_THAT(ContextPairs(facts),
              testing::Contains(std::pair<std::string, std::string>(
                  "pmubench_simulator_reset", "caches,branch_predictors")));
  facts.simulation->predictors_reset = false;
  const std::string notice = SimulatorResetNotice(*facts.simulation);
  EXPECT_THAT(notice, HasSubstr("branch predictors are not reset"));
  EXPECT_THAT(ContextPairs(facts),
              testing::Contains(std::pair<std::string, std::string>(
                  "pmubench_simulator_reset", "caches")));
  EXPECT_EQ(FreshHeapNotice(*facts.simulation), "");
  EXPECT_THAT(ContextPairs(facts),
              testing::Contains(std::pair<std::string, std::string>(
                  "pmubench_fresh_heap", "on")));
  facts.simulation->fresh_heap = false;
  EXPECT_THAT(FreshHeapNotice(*facts.simulation),
              HasSubstr("without the fresh heap"));
  EXPECT_THAT(ContextPairs(facts),
              testing::Contains(std::pair<std::string, std::string>(
                  "pmubench_fresh_heap", "off")));
  facts.simulation->geometry = "none";
  EXPECT_EQ(SimulatorResetNotice(*facts.simulation), "");
  for (const auto& [key, value] : ContextPairs(facts)) {
    EXPECT_NE(key, "pmubench_simulator_reset") << value;
  }
}

}  // namespace
}  // namespace pmubench::internal
