// End-to-end tests of PMU_BENCHMARK cases run in-process through Google
// Benchmark with real software events: the counts must be exact where the
// work is known (writing one byte to a fresh page is one page fault).
#include <pmubench/pmubench.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "framework/perf/events/pmu.h"
#include "framework/runner/measure/batch_meter.h"
#include "framework/runner/measure/started_threads.h"
#include "framework/runner/measure/thread_groups.h"
#include "framework/runner/plan/event_set.h"
#include "framework/runner/session/session.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"
#include "tests/perf/synthetic_sysfs.h"
#include "tests/runner/counting_test.h"
#include "tests/runner/fresh_pages.h"
#include "tests/runner/run_capture.h"

namespace pmubench {
namespace {

using ::pmubench::testing::BenchRun;
using ::pmubench::testing::CounterOf;
using ::pmubench::testing::CountingTest;
using ::pmubench::testing::FindRun;
using ::pmubench::testing::FreshPages;
using ::pmubench::testing::kSoftware;
using ::pmubench::testing::PrepareOrDie;
using ::pmubench::testing::RunMatching;
using ::testing::HasSubstr;

size_t PagesFor(const State& state, size_t per_iteration) {
  return per_iteration * static_cast<size_t>(state.max_iterations);
}

// --- cases ------------------------------------------------------------------

// range(0) fresh pages per iteration.
void BM_TouchPages(State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  FreshPages pages(PagesFor(state, n));
  for (auto _ : state) pages.TouchNext(n);
}
PMU_BENCHMARK(BM_TouchPages)->Arg(1)->Arg(8)->Iterations(50);

// Faults in setup, teardown and while paused must not be counted.
void BM_UncountedFaults(State& state) {
  FreshPages setup(64);
  setup.TouchNext(64);
  FreshPages paused(PagesFor(state, 3));
  FreshPages counted(PagesFor(state, 2));
  for (auto _ : state) {
    state.PauseTiming();
    paused.TouchNext(3);
    state.ResumeTiming();
    counted.TouchNext(2);
  }
  FreshPages teardown(16);
  teardown.TouchNext(16);
}
PMU_BENCHMARK(BM_UncountedFaults)->Iterations(20);

void BM_KeepRunningPages(State& state) {
  FreshPages pages(PagesFor(state, 3));
  while (state.KeepRunning()) pages.TouchNext(3);
}
PMU_BENCHMARK(BM_KeepRunningPages)->Iterations(30);

void BM_ThreadPages(State& state) {
  FreshPages pages(PagesFor(state, 5));
  for (auto _ : state) pages.TouchNext(5);
}
PMU_BENCHMARK(BM_ThreadPages)->Threads(2)->Iterations(20);

void BM_RepeatedPages(State& state) {
  FreshPages pages(PagesFor(state, 4));
  for (auto _ : state) pages.TouchNext(4);
}
PMU_BENCHMARK(BM_RepeatedPages)->Iterations(25)->Repetitions(3);

void BM_FailsInLoop(State& state) {
  for (auto _ : state) {
    state.SkipWithError("deliberate failure");
    break;
  }
}
PMU_BENCHMARK(BM_FailsInLoop)->Iterations(10);

// Errors before the loop: the loop must run zero times, nothing counted.
void BM_FailsBeforeLoop(State& state) {
  state.SkipWithError("setup failed");
  FreshPages pages(8);
  for (auto _ : state) pages.TouchNext(1);
  if (pages.touched() != 0) std::abort();
}
PMU_BENCHMARK(BM_FailsBeforeLoop)->Iterations(10);

void BM_ReturnsAfterSetupError(State& state) {
  state.SkipWithError("setup failed, returned early");
}
PMU_BENCHMARK(BM_ReturnsAfterSetupError)->Iterations(10);

void BM_Captured(State& state, size_t pages_per_iteration) {
  FreshPages pages(PagesFor(state, pages_per_iteration));
  for (auto _ : state) pages.TouchNext(pages_per_iteration);
}
PMU_BENCHMARK_CAPTURE(BM_Captured, seven, size_t{7})->Iterations(10);

// Leaves the loop with `break` and no SkipWithError: Google Benchmark would
// report max_iterations for it; the run must fail instead.
void BM_BreaksWithoutError(State& state) {
  int left = 3;
  for (auto _ : state) {
    if (--left == 0) break;
  }
}
PMU_BENCHMARK(BM_BreaksWithoutError)->Iterations(10);

void BM_KeepRunningLeftEarly(State& state) {
  while (state.KeepRunning()) break;
}
PMU_BENCHMARK(BM_KeepRunningLeftEarly)->Iterations(10);

void BM_NeverRunsItsLoop(State&) {}
PMU_BENCHMARK(BM_NeverRunsItsLoop)->Iterations(10);

// Derived metrics of a threaded run: the ratio of the sums over threads.
// Thread 0 does nothing per iteration; thread 1 touches 4 fresh pages. The
// metric page-faults / task-clock is set by hand (no built-in metric has
// software inputs); a mean of per-thread ratios would be about half the
// ratio of the sums, as thread 0's task-clock is far below thread 1's.
internal::BatchTotals ratio_totals;

const internal::EventSet& FaultsPerTaskClock() {
  static const internal::EventSet* set = [] {
    absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
    absl::StatusOr<internal::EventSet> made =
        internal::MakeEventSet("page-faults,task-clock", *pmus, {});
    auto* owned = new internal::EventSet(*made);
    owned->derived = {{"faults-per-ns", 0, 1}};
    return owned;
  }();
  return *set;
}

void BM_ThreadRatio(benchmark::State& gb_state) {
  absl::StatusOr<internal::ThreadGroup*> group =
      internal::ThreadGroupFor(FaultsPerTaskClock());
  if (!group.ok()) {
    gb_state.SkipWithError(std::string(group.status().message()).c_str());
    return;
  }
  const size_t pages = gb_state.thread_index() == 1 ? 4 : 0;
  FreshPages fresh(pages * static_cast<size_t>(gb_state.max_iterations));
  internal::BatchMeter meter(**group);
  {
    State state(gb_state, &meter);
    for (auto _ : state) fresh.TouchNext(pages);
  }
  meter.Report(gb_state, ratio_totals);
}
BENCHMARK(BM_ThreadRatio)->Threads(2)->Iterations(200);

void BM_EmptyLoop(State& state) {
  for (auto _ : state) {
  }
}
PMU_BENCHMARK(BM_EmptyLoop)->Iterations(1);

// Fixture: SetUp's faults are not counted; the body's are.
class PagesFixture : public Fixture {
 public:
  void SetUp(State& state) override {
    FreshPages setup(32);
    setup.TouchNext(32);
    pages_ = std::make_unique<FreshPages>(PagesFor(state, 6));
  }
  void TearDown(State&) override { pages_.reset(); }

 protected:
  std::unique_ptr<FreshPages> pages_;
};

PMU_BENCHMARK_DEFINE_F(PagesFixture, Touch)(State& state) {
  for (auto _ : state) pages_->TouchNext(6);
}
PMU_BENCHMARK_REGISTER_F(PagesFixture, Touch)->Iterations(40);

// The one-macro form: no builder calls, so Google Benchmark picks the
// iterations (up to 10^9); only SetUp touches pages.
class SetUpFaultsFixture : public Fixture {
 public:
  void SetUp(State&) override {
    FreshPages setup(32);
    setup.TouchNext(32);
  }
};

PMU_BENCHMARK_F(SetUpFaultsFixture, SetUpOnly)(State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}

// A thread of its own each iteration, joined: its page faults are in no
// count, and the row says so.
void BM_OwnThreadPages(State& state) {
  FreshPages pages(PagesFor(state, 4));
  for (auto _ : state) {
    std::thread worker([&pages] { pages.TouchNext(4); });
    worker.join();
  }
}
PMU_BENCHMARK(BM_OwnThreadPages)->Iterations(5);

// --- helpers -----------------------------------------------------------------

class BatchTest : public CountingTest {
 protected:
  void SetUp() override {
    CountingTest::SetUp();
    if (IsSkipped()) return;
    PrepareOrDie({.counters = kSoftware});
  }
};

// --- tests -------------------------------------------------------------------

TEST_F(BatchTest, FreshPagesGiveExactlyNPageFaultsPerIteration) {
  const std::vector<BenchRun> runs = RunMatching("^BM_TouchPages/");
  ASSERT_EQ(runs.size(), 2u);
  const BenchRun* one = FindRun(runs, "BM_TouchPages/1/iterations:50");
  const BenchRun* eight = FindRun(runs, "BM_TouchPages/8/iterations:50");
  ASSERT_NE(one, nullptr);
  ASSERT_NE(eight, nullptr);
  EXPECT_EQ(CounterOf(*one, "page-faults"), 1.0);
  EXPECT_EQ(CounterOf(*eight, "page-faults"), 8.0);
  EXPECT_EQ(one->iterations, 50);
  EXPECT_GT(CounterOf(*eight, "task-clock"), 0.0);
  EXPECT_GE(CounterOf(*eight, "context-switches"), 0.0);
  EXPECT_EQ(CounterOf(*eight, internal::kRunningFractionName), 1.0);
}

TEST_F(BatchTest, SetupTeardownAndPausedFaultsAreNotCounted) {
  const std::vector<BenchRun> runs = RunMatching("^BM_UncountedFaults");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].error_occurred) << runs[0].error_message;
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 2.0);
}

// What State's own code adds is calibrated on the thread's group: the
// range-for batch at open, another loop form at its first batch, and the
// ResumeTiming..PauseTiming pair (timer code included) at the first pause.
TEST_F(BatchTest, StateOverheadIsCalibratedPerLoopFormAndPausePair) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet(kSoftware, *pmus, {});
  ASSERT_TRUE(set.ok()) << set.status();
  internal::CloseThreadGroup();
  absl::StatusOr<internal::ThreadGroup*> opened =
      internal::ThreadGroupFor(*set);
  ASSERT_TRUE(opened.ok()) << opened.status();
  const internal::StateOverhead& fresh = (*opened)->state_overhead;
  EXPECT_TRUE(fresh.batch[0].has_value()) << "range-for, calibrated at open";
  EXPECT_FALSE(fresh.batch[1].has_value()) << "KeepRunning: not used yet";
  EXPECT_EQ(fresh.pause_pair_samples, 0);

  RunMatching("^BM_UncountedFaults");
  RunMatching("^BM_KeepRunningPages");
  absl::StatusOr<internal::ThreadGroup*> used = internal::ThreadGroupFor(*set);
  ASSERT_TRUE(used.ok()) << used.status();
  ASSERT_EQ(*used, *opened) << "the same group, held by the thread";
  const internal::StateOverhead& overhead = (*used)->state_overhead;
  EXPECT_TRUE(overhead.batch[1].has_value());
  EXPECT_FALSE(overhead.batch[2].has_value()) << "no KeepRunningBatch case";
  EXPECT_EQ(overhead.pause_pair_samples, internal::kPausePairSamples);
  EXPECT_GT(overhead.pause_pair[0], 0.0)
      << "task-clock of two snapshots and the timer's clock reads";
  EXPECT_EQ(overhead.pause_pair[1], 0.0) << "no page faults in a pause pair";
  // The pause pair's samples are not part of the batch: 2 faults per
  // iteration, as counted.
  EXPECT_EQ(CounterOf(RunMatching("^BM_UncountedFaults")[0], "page-faults"),
            2.0);
}

TEST_F(BatchTest, KeepRunningLoopIsCountedLikeRangeFor) {
  const std::vector<BenchRun> runs = RunMatching("^BM_KeepRunningPages");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].iterations, 30);
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 3.0);
}

TEST_F(BatchTest, ThreadsReportPerIterationLikeGoogleBenchmark) {
  const std::vector<BenchRun> runs = RunMatching("^BM_ThreadPages");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].threads, 2);
  // Google Benchmark sums the threads' counters and divides by the
  // iterations of all threads.
  EXPECT_EQ(runs[0].iterations, 40);
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 5.0);
  EXPECT_EQ(CounterOf(runs[0], internal::kRunningFractionName), 1.0);
}

// Threads the case starts are marked on the row; Google Benchmark's own
// (->Threads(N)) and a case without threads are not.
TEST_F(BatchTest, ThreadsTheCaseStartsAreSaidOnTheRow) {
  const std::vector<BenchRun> own = RunMatching("^BM_OwnThreadPages");
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(CounterOf(own[0], internal::kThreadsNotCountedName), 1.0);
  // Counted, the worker's 4 faults per iteration would be there.
  EXPECT_LT(CounterOf(own[0], "page-faults"), 4.0);
  for (const char* plain : {"^BM_ThreadPages", "^BM_TouchPages/1/"}) {
    const std::vector<BenchRun> runs = RunMatching(plain);
    ASSERT_FALSE(runs.empty()) << plain;
    EXPECT_EQ(runs[0].counters.count(internal::kThreadsNotCountedName), 0u)
        << plain;
  }
}

TEST_F(BatchTest, RepetitionsReportEachRunAndAggregates) {
  const std::vector<BenchRun> runs = RunMatching("^BM_RepeatedPages");
  int iteration_runs = 0;
  for (const BenchRun& run : runs) {
    if (run.run_type == BenchRun::RT_Iteration) {
      ++iteration_runs;
      EXPECT_EQ(CounterOf(run, "page-faults"), 4.0);
    }
  }
  EXPECT_EQ(iteration_runs, 3);
  const std::string base = "BM_RepeatedPages/iterations:25/repeats:3";
  const BenchRun* mean = FindRun(runs, base + "_mean");
  const BenchRun* median = FindRun(runs, base + "_median");
  const BenchRun* stddev = FindRun(runs, base + "_stddev");
  ASSERT_NE(mean, nullptr);
  ASSERT_NE(median, nullptr);
  ASSERT_NE(stddev, nullptr);
  EXPECT_EQ(CounterOf(*mean, "page-faults"), 4.0);
  EXPECT_EQ(CounterOf(*median, "page-faults"), 4.0);
  EXPECT_EQ(CounterOf(*stddev, "page-faults"), 0.0);
}

TEST_F(BatchTest, SkipWithErrorFailsThatCaseOnly) {
  const std::vector<BenchRun> runs =
      RunMatching("^(BM_FailsInLoop|BM_TouchPages/1/)");
  const BenchRun* failed = FindRun(runs, "BM_FailsInLoop/iterations:10");
  const BenchRun* good = FindRun(runs, "BM_TouchPages/1/iterations:50");
  ASSERT_NE(failed, nullptr);
  ASSERT_NE(good, nullptr);
  EXPECT_TRUE(failed->error_occurred);
  EXPECT_EQ(failed->error_message, "deliberate failure");
  EXPECT_EQ(failed->counters.count("page-faults"), 0u);
  EXPECT_FALSE(good->error_occurred);
  EXPECT_EQ(CounterOf(*good, "page-faults"), 1.0);
}

TEST_F(BatchTest, LeavingTheLoopEarlyWithoutErrorFailsTheCase) {
  const std::vector<BenchRun> runs = RunMatching(
      "^(BM_BreaksWithoutError|BM_KeepRunningLeftEarly|BM_NeverRunsItsLoop)");
  ASSERT_EQ(runs.size(), 3u);
  for (const BenchRun& run : runs) {
    EXPECT_TRUE(run.error_occurred) << run.benchmark_name();
    EXPECT_THAT(run.error_message, HasSubstr(run.run_name.function_name));
    EXPECT_THAT(run.error_message, HasSubstr("SkipWithError"));
    EXPECT_EQ(run.counters.count("page-faults"), 0u);
  }
  const BenchRun* broke = FindRun(runs, "BM_BreaksWithoutError/iterations:10");
  ASSERT_NE(broke, nullptr);
  EXPECT_THAT(broke->error_message, HasSubstr("before the end"));
}

TEST_F(BatchTest, ThreadedDerivedMetricIsTheRatioOfSums) {
  const std::vector<BenchRun> runs = RunMatching("^BM_ThreadRatio");
  ASSERT_EQ(runs.size(), 1u);
  const BenchRun& run = runs[0];
  ASSERT_FALSE(run.error_occurred) << run.error_message;
  EXPECT_EQ(run.threads, 2);
  // Both fields are sums over threads per iteration; their ratio is the
  // ratio of the summed totals.
  const double faults = CounterOf(run, "page-faults");
  const double clock = CounterOf(run, "task-clock");
  EXPECT_EQ(faults, 2.0) << "4 per iteration on one thread of two";
  ASSERT_GT(clock, 0.0);
  EXPECT_NEAR(CounterOf(run, "faults-per-ns"), faults / clock,
              1e-9 * faults / clock);
}

TEST_F(BatchTest, ErrorsBeforeTheLoopFailTheCase) {
  const std::vector<BenchRun> runs =
      RunMatching("^(BM_FailsBeforeLoop|BM_ReturnsAfterSetupError)");
  ASSERT_EQ(runs.size(), 2u);
  for (const BenchRun& run : runs) {
    EXPECT_TRUE(run.error_occurred) << run.benchmark_name();
    EXPECT_EQ(run.counters.count("page-faults"), 0u);
  }
}

TEST_F(BatchTest, CaptureFormPassesArguments) {
  const std::vector<BenchRun> runs = RunMatching("^BM_Captured/seven");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(CounterOf(runs[0], "page-faults"), 7.0);
}

TEST_F(BatchTest, FixtureSetUpIsNotCounted) {
  const std::vector<BenchRun> runs =
      RunMatching("^(PagesFixture|SetUpFaultsFixture)/");
  const BenchRun* touch = FindRun(runs, "PagesFixture/Touch/iterations:40");
  const BenchRun* setup_only = FindRun(runs, "SetUpFaultsFixture/SetUpOnly");
  ASSERT_NE(touch, nullptr);
  ASSERT_NE(setup_only, nullptr);
  EXPECT_EQ(CounterOf(*touch, "page-faults"), 6.0);
  EXPECT_EQ(CounterOf(*setup_only, "page-faults"), 0.0);
}

TEST_F(BatchTest, OverheadIsSubtractedButNeverBelowZero) {
  const std::vector<BenchRun> runs = RunMatching("^BM_EmptyLoop");
  ASSERT_EQ(runs.size(), 1u);
  for (const char* name : {"task-clock", "page-faults", "context-switches"}) {
    EXPECT_GE(CounterOf(runs[0], name), 0.0) << name;
  }
  // An empty one-iteration batch costs less task-clock than one empty
  // start/stop pair measured many times (the overhead that is subtracted).
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet(kSoftware, *pmus, {});
  ASSERT_TRUE(set.ok()) << set.status();
  absl::StatusOr<internal::ThreadGroup*> group = internal::ThreadGroupFor(*set);
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_GT((*group)->overhead()[0], 0.0) << "task-clock of two read(2) calls";
  EXPECT_EQ((*group)->overhead()[1], 0.0) << "no page faults in a snapshot";
}

// A sysfs alias's .scale multiplies what the run reports (energy events
// report Joules, not raw counts). The alias here names the real page-faults
// event (software PMU, type 1, config 2) so it counts for real.
TEST_F(BatchTest, AliasScaleMultipliesTheReportedCount) {
  perf::SyntheticSysfs sysfs;
  sysfs.AddPmu("software", PERF_TYPE_SOFTWARE, {{"config", "config:0-63"}},
               {{"faults", "config=0x2"},
                {"faults.scale", "0.5"},
                {"faults.unit", "half-faults"}});
  absl::StatusOr<perf::PmuRegistry> pmus =
      perf::PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet("software/faults/", *pmus, {});
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->events[0].scale, 0.5);
  absl::StatusOr<internal::ThreadGroup*> group = internal::ThreadGroupFor(*set);
  ASSERT_TRUE(group.ok()) << group.status();

  FreshPages pages(64);
  internal::BatchMeter meter(**group);
  meter.Start();
  pages.TouchNext(64);
  meter.Stop();
  meter.Accumulate(internal::BatchMeter::SegmentEnd::kFinish);
  EXPECT_EQ(meter.CorrectedTotal(0), 64.0);
  EXPECT_EQ(meter.ReportedTotal(0), 32.0);
}

TEST_F(BatchTest, GroupsAreOpenedOncePerThreadAndReused) {
  RunMatching("^BM_TouchPages/1/");
  const int open_after_first = internal::OpenThreadGroupCount();
  RunMatching("^BM_TouchPages/");
  RunMatching("^BM_KeepRunningPages");
  EXPECT_EQ(internal::OpenThreadGroupCount(), open_after_first);
}

}  // namespace
}  // namespace pmubench
