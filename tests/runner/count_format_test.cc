// Console value formatting: units, SI suffixes, and no "nan" ever.
#include "framework/runner/output/count_format.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace pmubench {
namespace {

TEST(UnitOfTest, TimeEventsRatiosAndCounts) {
  EXPECT_EQ(UnitOf("task-clock"), CounterUnit::kNanoseconds);
  EXPECT_EQ(UnitOf("cpu-clock:u"), CounterUnit::kNanoseconds);
  EXPECT_EQ(UnitOf("branch-miss-ratio"), CounterUnit::kRatio);
  EXPECT_EQ(UnitOf("L1-dcache-load-miss-ratio:u"), CounterUnit::kRatio);
  EXPECT_EQ(UnitOf("cycles"), CounterUnit::kCount);
  EXPECT_EQ(UnitOf("IPC"), CounterUnit::kCount);
  EXPECT_EQ(UnitOf("msr/tsc/"), CounterUnit::kCount);
}

TEST(FormatCounterTest, EachUnit) {
  EXPECT_EQ(FormatCounter(8, CounterUnit::kCount), "8");
  EXPECT_EQ(FormatCounter(12345678, CounterUnit::kCount), "12.35M");
  EXPECT_EQ(FormatCounter(812.34, CounterUnit::kNanoseconds), "812.3ns");
  EXPECT_EQ(FormatCounter(1234.5, CounterUnit::kNanoseconds), "1.234us");
  EXPECT_EQ(FormatCounter(2.5e7, CounterUnit::kNanoseconds), "25ms");
  EXPECT_EQ(FormatCounter(3e9, CounterUnit::kNanoseconds), "3s");
  EXPECT_EQ(FormatCounter(0.0123, CounterUnit::kRatio), "1.23%");
}

TEST(FormatCounterTest, NotANumberIsNeverNan) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (CounterUnit unit :
       {CounterUnit::kCount, CounterUnit::kNanoseconds, CounterUnit::kRatio}) {
    EXPECT_EQ(FormatCounter(nan, unit), "n/a");
    EXPECT_EQ(FormatCounter(-nan, unit), "n/a");
    EXPECT_EQ(FormatCounter(inf, unit), "n/a");
  }
  EXPECT_EQ(FormatCount(-nan), "n/a");
  EXPECT_EQ(FormatPercent(-nan, 2), "n/a");
  EXPECT_EQ(FormatPercent(0.4714, 2), "47.14%");
}

}  // namespace
}  // namespace pmubench
