#include "framework/perf/events/near_names.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(NearNamesTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("cycles", "cycles"), 0);
  EXPECT_EQ(EditDistance("cyclez", "cycles"), 1);
  EXPECT_EQ(EditDistance("cyles", "cycles"), 1);
  EXPECT_EQ(EditDistance("LLC", "llc"), 0);  // case-insensitive
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("abc", ""), 3);
}

TEST(NearNamesTest, NearestFirstAndNothingWhenFar) {
  const std::vector<std::string> names = {
      "cycles", "ref-cycles", "instructions", "branch-misses", "cache-misses"};
  EXPECT_THAT(NearNames("cyclez", names), ElementsAre("cycles"));
  EXPECT_THAT(NearNames("ref-cycle", names), ElementsAre("ref-cycles"));
  EXPECT_THAT(NearNames("misses", names),
              ElementsAre("cache-misses", "branch-misses"));
  EXPECT_THAT(NearNames("zzzzzzzz", names), IsEmpty());
  EXPECT_THAT(NearNames("cyclez", names, 1), ElementsAre("cycles"));
}

}  // namespace
}  // namespace pmubench::perf
