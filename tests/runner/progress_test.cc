// The progress line: its estimate, its text, and that it draws nothing when
// disabled (stderr not a terminal).
#include "framework/runner/output/progress.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(FormatDurationTest, SecondsMinutesHours) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(59.4), "59s");
  EXPECT_EQ(FormatDuration(65), "1m05s");
  EXPECT_EQ(FormatDuration(7380), "2h03m");
  EXPECT_EQ(FormatDuration(-3), "0s");
}

TEST(EstimateRemainingTest, MeanCaseTimeTimesCasesLeft) {
  EXPECT_FALSE(EstimateRemaining(0, 10, 5).has_value());  // nothing done
  EXPECT_FALSE(EstimateRemaining(3, 0, 5).has_value());   // total unknown
  EXPECT_DOUBLE_EQ(*EstimateRemaining(2, 10, 4), 16);     // 2 s a case, 8 left
  EXPECT_DOUBLE_EQ(*EstimateRemaining(10, 10, 4), 0);
}

TEST(ProgressTextTest, CaseOfTotalElapsedAndEstimate) {
  EXPECT_EQ(ProgressText(0, 42, 1.2),
            "pmubench: case 1 of 42 running, 1s elapsed");
  EXPECT_EQ(ProgressText(3, 42, 12),
            "pmubench: case 4 of 42 running, 12s elapsed, about 2m36s left");
}

TEST(ProgressLineTest, RewritesInPlaceAndErases) {
  std::ostringstream out;
  double now = 100;
  ProgressLine line(&out, /*enabled=*/true, [&now] { return now; });
  line.Start(3);
  now = 102;
  line.CaseDone();
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("\r\033[Kpmubench: case 1 of 3 running"));
  EXPECT_THAT(text, HasSubstr("\r\033[Kpmubench: case 2 of 3 running, 2s "
                              "elapsed, about 4s left"));
  EXPECT_THAT(text, Not(HasSubstr("\n")));  // never scrolls
  line.Clear();
  EXPECT_EQ(out.str().substr(text.size()), "\r\033[K");
  line.Clear();  // already clear: nothing more
  EXPECT_EQ(out.str().size(), text.size() + 4);
}

TEST(ProgressLineTest, DisabledWritesNothing) {
  std::ostringstream out;
  ProgressLine line(&out, /*enabled=*/false, [] { return 0.0; });
  line.Start(3);
  line.CaseDone();
  line.Clear();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace pmubench
