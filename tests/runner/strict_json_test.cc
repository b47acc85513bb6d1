// NullForNonFinite: Google Benchmark's bare NaN/Infinity become null; the
// rest of the text, strings above all, is unchanged.
#include "framework/runner/strict_json.h"

#include "gtest/gtest.h"

namespace pmubench {
namespace {

TEST(NullForNonFiniteTest, ReplacesEveryNonFiniteSpelling) {
  EXPECT_EQ(NullForNonFinite(R"({"a": NaN, "b": -NaN, "c": Infinity})"),
            R"({"a": null, "b": null, "c": null})");
  EXPECT_EQ(NullForNonFinite(R"([-Infinity, nan, -nan, inf, -inf, +inf])"),
            R"([null, null, null, null, null, null])");
}

TEST(NullForNonFiniteTest, LeavesStringsLiteralsAndNumbersAlone) {
  const std::string json =
      R"({"NaN": "NaN and Infinity", "q": "a \"NaN\" b\\", "t": true, )"
      R"("f": false, "n": null, "e": 1e-5, "E": -2.5E+10, "i": -3})";
  EXPECT_EQ(NullForNonFinite(json), json);
}

TEST(NullForNonFiniteTest, AStringEndingInABackslashEndsThere) {
  EXPECT_EQ(NullForNonFinite(R"(["\\", NaN, "x"])"), R"(["\\", null, "x"])");
}

}  // namespace
}  // namespace pmubench
