// Prepare (session.h) end to end, in-process, with real software events:
// which set each case counts (--counters, a case's own list, "none", the
// fallback without a hardware PMU), the context keys and errors.
#include "framework/runner/session/session.h"

#include <pmubench/pmubench.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "framework/runner/plan/event_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/counting_test.h"
#include "tests/runner/fresh_pages.h"
#include "tests/runner/run_capture.h"

namespace pmubench {
namespace {

using ::pmubench::testing::BenchRun;
using ::pmubench::testing::CounterOf;
using ::pmubench::testing::FindRun;
using ::pmubench::testing::FreshPages;
using ::pmubench::testing::kSoftware;
using ::pmubench::testing::MachineHasHardwarePmu;
using ::pmubench::testing::PrepareOrDie;
using ::pmubench::testing::RunMatching;
using ::testing::HasSubstr;

size_t PagesFor(const State& state, size_t per_iteration) {
  return per_iteration * static_cast<size_t>(state.max_iterations);
}

// --- cases ------------------------------------------------------------------

void BM_OwnEvents(State& state) {
  FreshPages pages(PagesFor(state, 2));
  for (auto _ : state) pages.TouchNext(2);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_OwnEvents, "page-faults,minor-faults")
    ->Iterations(40);

void BM_OwnNone(State& state) {
  FreshPages pages(PagesFor(state, 2));
  for (auto _ : state) pages.TouchNext(2);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_OwnNone, "none")->Iterations(10);

void BM_HardwareOwn(State& state) {
  uint64_t x = 1;
  for (auto _ : state) benchmark::DoNotOptimize(x = x * 3 + 1);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_HardwareOwn, "instructions,cycles")
    ->Iterations(1000);

// --- tests -------------------------------------------------------------------

using SessionTest = ::pmubench::testing::CountingTest;

TEST_F(SessionTest, CountersNoneTurnsCountingOff) {
  const SessionInfo info = PrepareOrDie({.counters = "none"});
  EXPECT_TRUE(info.facts.sets.empty());
  const std::vector<BenchRun> runs = RunMatching("^BM_TouchPages/1/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.count("page-faults"), 0u);
  EXPECT_EQ(runs[0].counters.count(internal::kRunningFractionName), 0u);
  PrepareOrDie({.counters = kSoftware});
}

TEST_F(SessionTest, CaseOwnEventsAreUsedAndOverridden) {
  PrepareOrDie({});
  std::vector<BenchRun> runs = RunMatching("^BM_OwnEvents");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 2.0);
  EXPECT_EQ(CounterOf(runs[0], "minor-faults"), 2.0);
  EXPECT_EQ(runs[0].counters.count("task-clock"), 0u);

  PrepareOrDie({.counters = "task-clock"});
  runs = RunMatching("^BM_OwnEvents");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.count("page-faults"), 0u);
  EXPECT_GT(CounterOf(runs[0], "task-clock"), 0.0);
  PrepareOrDie({.counters = kSoftware});
}

TEST_F(SessionTest, CaseCanTurnItsOwnCountingOff) {
  PrepareOrDie({});
  const std::vector<BenchRun> runs = RunMatching("^BM_OwnNone");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.count("page-faults"), 0u);
  PrepareOrDie({.counters = kSoftware});
}

TEST_F(SessionTest, ContextHoldsTheDesignKeys) {
  const SessionInfo info = PrepareOrDie({.counters = kSoftware});
  std::vector<std::string> keys;
  for (const auto& [key, value] : info.context) keys.push_back(key);
  EXPECT_THAT(keys, ::testing::ElementsAre(
                        "pmubench_version", "pmubench_pmus", "pmubench_events",
                        "pmubench_pinned", "pmubench_exclude_kernel",
                        "pmubench_read_overhead", "pmubench_case_files",
                        "pmubench_backend"));
  for (const auto& [key, value] : info.context) {
    if (key == "pmubench_events") {
      EXPECT_THAT(value, HasSubstr("page-faults (pmu=software type=1 "
                                   "config=0x2 read="));
    }
    if (key == "pmubench_read_overhead") {
      EXPECT_THAT(value, HasSubstr("page-faults=0"));
    }
    if (key == "pmubench_pmus") {
      EXPECT_THAT(value, HasSubstr("software"));
    }
    if (key == "pmubench_case_files") {
      // family=file per PMU case: a capture's family is the function, a
      // fixture's the base class; each family once.
      const std::vector<std::string> pairs = absl::StrSplit(value, ';');
      EXPECT_THAT(
          pairs,
          ::testing::IsSupersetOf(
              {"BM_TouchPages=batch_test", "BM_Captured=batch_test",
               "PagesFixture=batch_test", "SetUpFaultsFixture=batch_test",
               "BM_OwnEvents=session_test"}));
      EXPECT_EQ(
          std::count(pairs.begin(), pairs.end(), "BM_TouchPages=batch_test"),
          1);
      EXPECT_THAT(value, ::testing::Not(HasSubstr("/")));
    }
    // The JSON reporter does not escape context values.
    EXPECT_EQ(value.find('"'), std::string::npos) << key;
  }
  EXPECT_THAT(
      info.counter_names,
      ::testing::ElementsAre("task-clock", "page-faults", "context-switches",
                             internal::kRunningFractionName));
}

TEST_F(SessionTest, BadSpecsAreErrorsNamingTheSpec) {
  for (const char* spec : {"no-such-event", "task-clock,bogus-faults",
                           "software/config=/", "page-faults,page-faults"}) {
    absl::StatusOr<SessionInfo> info = Prepare({.counters = spec});
    ASSERT_FALSE(info.ok()) << spec;
    EXPECT_THAT(std::string(info.status().message()),
                HasSubstr(std::string("--counters=") + spec));
  }
  PrepareOrDie({.counters = kSoftware});
}

TEST_F(SessionTest, DefaultFallsBackToSoftwareEventsWithoutHardwarePmu) {
  if (MachineHasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a hardware PMU: the fallback does not "
                    "apply (DefaultIsHardwareSetWithPmu covers it)";
  }
  const SessionInfo info = PrepareOrDie({});
  EXPECT_THAT(info.notice, HasSubstr("no hardware PMU"));
  EXPECT_THAT(info.notice, HasSubstr("BM_HardwareOwn"));
  EXPECT_EQ(info.notice.find('\n'), std::string::npos) << "one line";
  bool has_notice_key = false;
  for (const auto& [key, value] : info.context) {
    has_notice_key = has_notice_key || key == "pmubench_notice";
  }
  EXPECT_TRUE(has_notice_key);
  std::vector<BenchRun> runs =
      RunMatching("^(BM_TouchPages/8/|BM_HardwareOwn)");
  ASSERT_EQ(runs.size(), 2u);
  for (const BenchRun& run : runs) {
    EXPECT_FALSE(run.error_occurred) << run.error_message;
    EXPECT_EQ(run.counters.count("task-clock"), 1u);
    EXPECT_EQ(run.counters.count("context-switches"), 1u);
    EXPECT_EQ(run.counters.count("cycles"), 0u);
  }
  const BenchRun* eight = FindRun(runs, "BM_TouchPages/8/iterations:50");
  ASSERT_NE(eight, nullptr);
  EXPECT_EQ(CounterOf(*eight, "page-faults"), 8.0);

  // An explicit hardware list is an error, not a fallback.
  absl::StatusOr<SessionInfo> explicit_hw = Prepare({.counters = "cycles"});
  ASSERT_FALSE(explicit_hw.ok());
  EXPECT_THAT(std::string(explicit_hw.status().message()),
              HasSubstr("needs a hardware PMU"));
  PrepareOrDie({.counters = kSoftware});
}

TEST_F(SessionTest, DefaultIsHardwareSetWithPmu) {
  if (!MachineHasHardwarePmu()) {
    GTEST_SKIP() << "no hardware PMU: /sys/bus/event_source/devices/cpu "
                    "missing";
  }
  const SessionInfo info = PrepareOrDie({});
  const std::vector<BenchRun> runs =
      RunMatching("^(BM_TouchPages/8/|BM_HardwareOwn)");
  ASSERT_EQ(runs.size(), 2u);
  const BenchRun* touch = FindRun(runs, "BM_TouchPages/8/iterations:50");
  const BenchRun* own = FindRun(runs, "BM_HardwareOwn/iterations:1000");
  ASSERT_NE(touch, nullptr);
  ASSERT_NE(own, nullptr);
  for (const char* name : {"cycles", "instructions", "IPC"}) {
    EXPECT_EQ(touch->counters.count(name), 1u) << name;
  }
  // A PMU without branch events (arm64 under QEMU) drops them from the
  // default set and says so; otherwise they are counted and nothing is said.
  for (const char* name : {"branches", "branch-misses"}) {
    if (touch->counters.count(name) == 0) {
      EXPECT_THAT(info.notice, HasSubstr(name)) << "dropped without a word";
    }
  }
  if (touch->counters.count("branches") == 1) {
    EXPECT_TRUE(info.notice.empty()) << info.notice;
  }
  // x = x * 3 + 1 plus the loop: a handful of instructions per iteration.
  EXPECT_GT(CounterOf(*own, "instructions"), 2.0);
  EXPECT_LT(CounterOf(*own, "instructions"), 50.0);
  EXPECT_GT(CounterOf(*own, "IPC"), 0.0);
  PrepareOrDie({.counters = kSoftware});
}

}  // namespace
}  // namespace pmubench
