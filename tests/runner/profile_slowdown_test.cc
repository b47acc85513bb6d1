// The profiled batch against the measured one: when the warning is given,
// the period it suggests, and where the console and the JSON say so.
#include "framework/runner/profile/profile_slowdown.h"

#include <sstream>
#include <string>

#include "framework/perf/symbols/symbolizer.h"
#include "framework/runner/profile/profile_json.h"
#include "framework/runner/profile/profile_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ProfileSlowdownTest, RoundsUpToOneTwoFive) {
  EXPECT_EQ(RoundUpTo125(0.5), 1u);
  EXPECT_EQ(RoundUpTo125(1), 1u);
  EXPECT_EQ(RoundUpTo125(1.01), 2u);
  EXPECT_EQ(RoundUpTo125(3), 5u);
  EXPECT_EQ(RoundUpTo125(6), 10u);
  EXPECT_EQ(RoundUpTo125(102803), 200000u);
  EXPECT_EQ(RoundUpTo125(500000), 500000u);
  EXPECT_EQ(RoundUpTo125(1e30), 5'000'000'000'000'000'000u);
}

// A batch of `iterations` measured at `measured` s an iteration that ran
// `ratio` times as long with `samples` samples.
ProfiledBatchTimes Times(double measured, double ratio, int64_t iterations = 1,
                         uint64_t samples = 1) {
  return {measured, measured * ratio, iterations, samples};
}

TEST(ProfileSlowdownTest, NoWarningAtOrBelowTheThreshold) {
  ProfileSlowdown s =
      CompareProfiledBatch({35e-9, 36e-9, 1000, 10}, 100000, true);
  EXPECT_NEAR(s.ratio, 36.0 / 35.0, 1e-12);
  EXPECT_FALSE(s.warn);
  EXPECT_EQ(s.suggested_period, 0u);
  s = CompareProfiledBatch({2e-9, 3e-9, 1000, 10}, 1000, false);  // 1.5
  EXPECT_EQ(s.ratio, kProfileSlowdownWarnRatio);
  EXPECT_FALSE(s.warn);
  // Faster is noise, not sampling cost.
  EXPECT_FALSE(CompareProfiledBatch(Times(10e-9, 0.1), 1000, true).warn);
}

// The report of issue 23: 35 ns x 10^6 iterations measured (35 ms), the
// profiled batch 602 ms with 60261 samples at cpu-clock@10000. Each sample
// cost (602 - 35) ms / 60261 = 9.4 us; 10% of a period at 94 us, so
// 100000, where the reporter saw the profile match.
TEST(ProfileSlowdownTest, ClockSuggestsAPeriodOfSmallCost) {
  const ProfileSlowdown s =
      CompareProfiledBatch({35e-9, 602e-9, 1000000, 60261}, 10000, true);
  EXPECT_NEAR(s.ratio, 17.2, 1e-9);
  EXPECT_TRUE(s.warn);
  EXPECT_EQ(s.suggested_period, 100000u);
  EXPECT_EQ(SlowdownWarning(s),
            "the profiled batch ran 17.2x as long as the measured one: "
            "sampling interrupts dominate; try @100000");
}

// This machine (a VM): 400000 x 19.2 ns measured, 868x as long at
// cpu-clock@10000 with 172118 samples: 40 us a sample, so 500000 (where
// it ran 1.17x as long).
TEST(ProfileSlowdownTest, ClockOfCostlySamples) {
  const ProfileSlowdown s =
      CompareProfiledBatch(Times(19.2e-9, 868, 400000, 172118), 10000, true);
  EXPECT_EQ(s.suggested_period, 500000u);
}

// Any other event: the samples are fixed by the work, their cost falls as
// 1 / period: 2x at @1 is 10% at @10.
TEST(ProfileSlowdownTest, CountSuggestsAPeriodOfSmallCost) {
  ProfileSlowdown s = CompareProfiledBatch(Times(1e-6, 2), 1, false);
  EXPECT_TRUE(s.warn);
  EXPECT_EQ(s.suggested_period, 10u);
  s = CompareProfiledBatch(Times(1e-6, 31), 1000, false);  // 30 / 0.1
  EXPECT_EQ(s.suggested_period, 500000u);
}

TEST(ProfileSlowdownTest, AlwaysAboveTheCurrentPeriod) {
  for (double ratio : {1.51, 2.0, 10.0, 1000.0}) {
    for (bool clock : {true, false}) {
      for (uint64_t samples : {0, 1, 1000000000}) {
        const ProfileSlowdown s = CompareProfiledBatch(
            Times(1e-9, ratio, 1000, samples), 10000, clock);
        EXPECT_GT(s.suggested_period, 10000u) << ratio << " " << clock;
      }
    }
  }
}

TEST(ProfileSlowdownTest, UntimedBatchHasNoRatio) {
  EXPECT_EQ(CompareProfiledBatch({0, 1e-9, 1, 1}, 1000, true).ratio, 0);
  EXPECT_EQ(CompareProfiledBatch({1e-9, 0, 1, 1}, 1000, true).ratio, 0);
  EXPECT_FALSE(CompareProfiledBatch({1e-9, 0, 1, 1}, 1000, true).warn);
}

ProfileStore::Entry EntryWith(double ratio) {
  ProfileStore::Entry entry;
  entry.event = "cpu-clock@1000";
  entry.profile.samples = 10;
  // Per sample, (ratio - 1) us: 10% at (ratio - 1) x 10 us.
  entry.slowdown = CompareProfiledBatch(Times(1e-6, ratio), 1000, true);
  return entry;
}

TEST(ProfileSlowdownTest, JsonAlwaysHasTheRatioAndWarnsAboveTheThreshold) {
  const std::string slow = ProfileJsonFields(EntryWith(12.5));
  EXPECT_THAT(slow, HasSubstr("\"pmubench_profile_real_time_ns\": 12500.000"));
  EXPECT_THAT(slow, HasSubstr("\"pmubench_profile_slowdown\": 12.500"));
  EXPECT_THAT(slow, HasSubstr("\"pmubench_profile_slowdown_warning\": \"the "
                              "profiled batch ran 12.5x as long"));
  EXPECT_THAT(slow, HasSubstr("\"pmubench_profile_suggested_period\": 200000"));
  const std::string fine = ProfileJsonFields(EntryWith(1.02));
  EXPECT_THAT(fine, HasSubstr("\"pmubench_profile_slowdown\": 1.020"));
  EXPECT_THAT(fine, Not(HasSubstr("warning")));
  EXPECT_THAT(fine, Not(HasSubstr("suggested")));
  ProfileStore::Entry simulated = EntryWith(1);
  simulated.slowdown.reset();
  EXPECT_THAT(ProfileJsonFields(simulated), Not(HasSubstr("slowdown")));
  // The existing fields are unchanged.
  EXPECT_THAT(slow,
              HasSubstr("\"pmubench_profile_event\": \"cpu-clock@1000\""));
  EXPECT_THAT(slow, HasSubstr("\"pmubench_profile_throttles\": 0,"));
}

TEST(ProfileSlowdownTest, ConsoleWarnsUnderTheTable) {
  ProfileConfig config;
  config.event.spec = "cpu-clock";
  config.period = 1000;
  const ProfileStore::Entry slow = EntryWith(12.5);
  std::ostringstream out;
  PrintProfile(out, config, slow.profile, slow.slowdown);
  EXPECT_THAT(out.str(), HasSubstr("profile cpu-clock@1000: 10 samples"));
  EXPECT_THAT(out.str(), HasSubstr("\n  warning: the profiled batch ran 12.5x "
                                   "as long as the measured one: sampling "
                                   "interrupts dominate; try @200000\n"));
  std::ostringstream fine;
  PrintProfile(fine, config, slow.profile, EntryWith(1.2).slowdown);
  EXPECT_THAT(fine.str(), Not(HasSubstr("warning")));
}

TEST(ProfileSlowdownTest, UnknownIsExplainedWhenShown) {
  perf::Profile p;
  perf::FunctionSamples named;
  named.symbol = "Fib(int)";
  p.top.push_back(named);
  EXPECT_EQ(UnknownSymbolNote(p), "");
  perf::FunctionSamples unknown;
  unknown.symbol = perf::kUnknownSymbol;
  p.top.push_back(unknown);
  EXPECT_THAT(UnknownSymbolNote(p),
              HasSubstr("[unknown] is code with no symbol"));
}

}  // namespace
}  // namespace pmubench
