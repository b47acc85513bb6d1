// A set that does not fit one group, split into groups that take turns
// (group_split.h, CaseRunner::RunTurns), run in-process through Google
// Benchmark with real software events. No machine here has a PMU whose
// counters run out, but CounterGroup::Open refuses more than
// perf::kMaxGroupEvents (16) events in one group just as a PMU refuses more
// than it has counters, so 18 software events are split by the same path:
// learned by opening, never assumed. Counts stay exact in every group.
#include <pmubench/pmubench.h>

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/runner/measure/thread_groups.h"
#include "framework/runner/session/session.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/counting_test.h"
#include "tests/runner/fresh_pages.h"
#include "tests/runner/run_capture.h"

namespace pmubench {
namespace {

using ::pmubench::testing::BenchRun;
using ::pmubench::testing::CounterOf;
using ::pmubench::testing::FreshPages;
using ::pmubench::testing::PrepareOrDie;
using ::pmubench::testing::RunMatching;
using ::testing::HasSubstr;

// 18 events: the first 16 fill one group, task-clock:u and minor-faults:u
// land in the second. Page faults are counted in both groups, each time by
// a member on another PMU (perf_swevent) than its group's leader, a clock:
// the kernel schedules a group through its leader's PMU, and the members
// must count in every turn, not only when the thread is next switched in.
const std::vector<std::string> kEighteen = {
    "task-clock",         "page-faults",        "minor-faults",
    "cpu-clock",          "cpu-clock:u",        "context-switches",
    "context-switches:u", "cpu-migrations",     "cpu-migrations:u",
    "alignment-faults",   "alignment-faults:u", "emulation-faults",
    "emulation-faults:u", "major-faults",       "major-faults:u",
    "page-faults:u",      "task-clock:u",       "minor-faults:u"};
constexpr char kThree[] = "task-clock,page-faults,minor-faults";

int g_bodies = 0;  // how often BM_TurnPages's body ran

void BM_TurnPages(State& state) {
  ++g_bodies;
  const auto n = static_cast<size_t>(state.range(0));
  FreshPages pages(n * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(n);
}
PMU_BENCHMARK(BM_TurnPages)->Arg(1)->Arg(4)->Iterations(40);

void BM_TurnThreads(State& state) {
  FreshPages pages(3 * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(3);
}
PMU_BENCHMARK(BM_TurnThreads)->Threads(2)->Iterations(20);

void BM_TurnRepeated(State& state) {
  FreshPages pages(2 * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(2);
}
PMU_BENCHMARK(BM_TurnRepeated)->Iterations(10)->Repetitions(3);

// Paused faults are not counted, in any turn.
void BM_TurnPaused(State& state) {
  FreshPages paused(5 * static_cast<size_t>(state.max_iterations));
  FreshPages counted(static_cast<size_t>(state.max_iterations));
  for (auto _ : state) {
    state.PauseTiming();
    paused.TouchNext(5);
    state.ResumeTiming();
    counted.TouchNext(1);
  }
}
PMU_BENCHMARK(BM_TurnPaused)->Iterations(15);

// What the body reports (manual time, its own counters, a label) comes
// from the timed turn alone: the later turns' would add up.
void BM_TurnReports(State& state) {
  for (auto _ : state) {
    state.SetIterationTime(0.001);
    state.counters["calls"] += 1;
  }
  state.SetLabel("timed");
}
PMU_BENCHMARK(BM_TurnReports)->UseManualTime()->Iterations(7);

std::string ContextValue(const SessionInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.context) {
    if (k == key) return v;
  }
  return "(absent)";
}

class TurnsTest : public ::pmubench::testing::CountingTest {
 protected:
  void SetUp() override {
    CountingTest::SetUp();
    if (IsSkipped()) return;
    info_ = PrepareOrDie({.counters = absl::StrJoin(kEighteen, ",")});
  }
  void TearDown() override {
    internal::CloseThreadGroup();
    PrepareOrDie({.counters = kThree});
  }
  SessionInfo info_;
};

TEST_F(TurnsTest, TheSplitIsLearnedAndNamedInTheContextAndHeader) {
  std::vector<std::string> first(kEighteen.begin(), kEighteen.begin() + 16);
  EXPECT_EQ(
      ContextValue(info_, "pmubench_groups"),
      "{" + absl::StrJoin(first, ",") + "} {task-clock:u,minor-faults:u}");
  EXPECT_EQ(ContextValue(info_, "pmubench_runs_per_batch"), "2");
  EXPECT_THAT(internal::ConsoleHeader(info_.facts),
              HasSubstr("split into groups that fit the PMU"));
  // Every event is one field, once.
  EXPECT_EQ(info_.counter_names.size(), kEighteen.size() + 1);
}

TEST_F(TurnsTest, EveryGroupCountsExactlyPerIteration) {
  g_bodies = 0;
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnPages/");
  ASSERT_EQ(runs.size(), 2u);
  for (const BenchRun& run : runs) {
    ASSERT_FALSE(run.error_occurred) << run.error_message;
    const double n = run.run_name.args == "1" ? 1.0 : 4.0;
    for (const char* event : {"page-faults", "page-faults:u",       // group 1
                              "minor-faults", "minor-faults:u"}) {  // 1, 2
      EXPECT_EQ(CounterOf(run, event), n)
          << run.benchmark_name() << " " << event;
    }
    EXPECT_EQ(CounterOf(run, "major-faults"), 0.0);
    EXPECT_EQ(CounterOf(run, internal::kRunningFractionName), 1.0);
    EXPECT_EQ(run.iterations, 40);
  }
  // Two cases, one batch each (fixed iterations), two turns per batch.
  EXPECT_EQ(g_bodies, 2 * 2);
}

TEST_F(TurnsTest, ASetThatFitsRunsOnceAsBefore) {
  const SessionInfo info = PrepareOrDie({.counters = kThree});
  EXPECT_EQ(ContextValue(info, "pmubench_groups"), "(absent)");
  g_bodies = 0;
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnPages/1/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(CounterOf(runs[0], "minor-faults"), 1.0);
  EXPECT_EQ(g_bodies, 1);  // no extra run of the batch
}

TEST_F(TurnsTest, ThreadsSumTheirTurnsLikeGoogleBenchmark) {
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnThreads");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_FALSE(runs[0].error_occurred) << runs[0].error_message;
  EXPECT_EQ(runs[0].iterations, 40);
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 3.0);
  EXPECT_EQ(CounterOf(runs[0], "minor-faults:u"), 3.0);
}

TEST_F(TurnsTest, RepetitionsAndAggregatesHoldEveryGroup) {
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnRepeated");
  int iteration_runs = 0;
  for (const BenchRun& run : runs) {
    ASSERT_FALSE(run.error_occurred) << run.error_message;
    if (run.run_type == BenchRun::RT_Iteration) ++iteration_runs;
    if (run.aggregate_name == "stddev") {
      EXPECT_EQ(CounterOf(run, "minor-faults"), 0.0);
    } else if (run.aggregate_name != "cv") {
      EXPECT_EQ(CounterOf(run, "minor-faults"), 2.0) << run.benchmark_name();
      EXPECT_EQ(CounterOf(run, "page-faults"), 2.0) << run.benchmark_name();
    }
  }
  EXPECT_EQ(iteration_runs, 3);
}

TEST_F(TurnsTest, PausedWorkIsLeftOutOfEveryTurn) {
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnPaused");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_FALSE(runs[0].error_occurred) << runs[0].error_message;
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 1.0);
  EXPECT_EQ(CounterOf(runs[0], "minor-faults"), 1.0);
}

TEST_F(TurnsTest, OnlyTheTimedTurnReportsTimeCountersAndLabel) {
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnReports");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_FALSE(runs[0].error_occurred) << runs[0].error_message;
  // 7 iterations of 1 ms of manual time: 1 ms each, not 2.
  EXPECT_DOUBLE_EQ(runs[0].GetAdjustedRealTime(), 1e6);  // ns
  EXPECT_EQ(CounterOf(runs[0], "calls"), 7.0);
  EXPECT_EQ(runs[0].report_label, "timed");
}

// --pmubench_multiplex: the groups count at once, the body runs once per
// batch. Software events are never short of room, so they all run the
// whole time: exact here, scaled estimates where a PMU rotates them.
TEST_F(TurnsTest, MultiplexedGroupsCountInOnePass) {
  absl::StatusOr<SessionInfo> info =
      Prepare({.counters = absl::StrJoin(kEighteen, ","), .multiplex = true});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(ContextValue(*info, "pmubench_pinned"), "false");
  EXPECT_THAT(ContextValue(*info, "pmubench_groups"),
              HasSubstr("{task-clock:u,minor-faults:u}"));
  EXPECT_EQ(ContextValue(*info, "pmubench_runs_per_batch"), "1");
  EXPECT_THAT(internal::ConsoleHeader(info->facts), HasSubstr("multiplexed"));
  g_bodies = 0;
  const std::vector<BenchRun> runs = RunMatching("^BM_TurnPages/4/");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_FALSE(runs[0].error_occurred) << runs[0].error_message;
  EXPECT_EQ(g_bodies, 1);
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 4.0);
  EXPECT_EQ(CounterOf(runs[0], "minor-faults:u"), 4.0);
  EXPECT_EQ(CounterOf(runs[0], internal::kRunningFractionName), 1.0);
}

}  // namespace
}  // namespace pmubench
