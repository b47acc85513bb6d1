// StrictJson: Google Benchmark's bare NaN/Infinity become null, raw control
// characters in strings are escaped and ill-formed UTF-8 becomes U+FFFD; the
// rest of the text is unchanged.
#include "framework/runner/output/strict_json.h"

#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace pmubench {
namespace {

TEST(StrictJsonTest, ReplacesEveryNonFiniteSpelling) {
  EXPECT_EQ(StrictJson(R"({"a": NaN, "b": -NaN, "c": Infinity})"),
            R"({"a": null, "b": null, "c": null})");
  EXPECT_EQ(StrictJson(R"([-Infinity, nan, -nan, inf, -inf, +inf])"),
            R"([null, null, null, null, null, null])");
}

TEST(StrictJsonTest, LeavesStringsLiteralsAndNumbersAlone) {
  const std::string json =
      R"({"NaN": "NaN and Infinity", "q": "a \"NaN\" b\\", "t": true, )"
      R"("f": false, "n": null, "e": 1e-5, "E": -2.5E+10, "i": -3, )"
      R"("u": "\u0001\n", "del": "x)"
      "\x7f"
      R"("})";
  EXPECT_EQ(StrictJson(json), json);
}

TEST(StrictJsonTest, AStringEndingInABackslashEndsThere) {
  EXPECT_EQ(StrictJson(R"(["\\", NaN, "x"])"), R"(["\\", null, "x"])");
}

// Each byte alone in a string: a control character is escaped, other ASCII
// is kept ('"' and '\' arrive escaped, as Google Benchmark writes them), and
// a byte of 0x80 or more is no UTF-8 character on its own.
TEST(StrictJsonTest, EveryByteValueAloneInAString) {
  for (int b = 0; b < 256; ++b) {
    SCOPED_TRACE(b);
    const char c = static_cast<char>(b);
    std::string escaped(1, c);
    if (c == '"' || c == '\\') escaped = std::string("\\") + c;
    const std::string json = "{\"name\": \"<" + escaped + ">\", \"v\": NaN}";
    std::string expected;
    if (b < 0x20) {
      expected = absl::StrFormat("\\u%04x", b);
    } else if (b < 0x80) {
      expected = escaped;
    } else {
      expected = "\\ufffd";
    }
    EXPECT_EQ(StrictJson(json),
              "{\"name\": \"<" + expected + ">\", \"v\": null}");
  }
}

TEST(StrictJsonTest, KeepsWellFormedUtf8) {
  // é, 名, U+FFFD itself, 😀 and U+10FFFF, the largest code point.
  const std::string json =
      "[\"\xc3\xa9\xe5\x90\x8d\xef\xbf\xbd\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"]";
  EXPECT_EQ(StrictJson(json), json);
}

// One U+FFFD per maximal ill-formed subpart (Unicode 15, table 3-8 and the
// examples after it; Python's bytes.decode(errors="replace") agrees).
TEST(StrictJsonTest, ReplacesEachMaximalIllFormedSubpart) {
  const struct {
    std::string in;
    std::string out;
  } cases[] = {
      {"a\xf1\x80\x80\xe1\x80\xc2"
       "b\x80"
       "c\x80\xbf"
       "d",
       "a\\ufffd\\ufffd\\ufffdb\\ufffdc\\ufffd\\ufffdd"},
      {"\xc0\xaf", "\\ufffd\\ufffd"},                        // overlong '/'
      {"\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd"},             // overlong
      {"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"},             // a surrogate
      {"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"},  // > U+10FFFF
      {"\xe2\x82", "\\ufffd"},                               // cut short
      {"\xf0\x9f\x98", "\\ufffd"},
      {"\xe2\x82\x01", "\\ufffd\\u0001"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(StrictJson("[\"" + c.in + "\", NaN]"),
              "[\"" + c.out + "\", null]");
  }
}

}  // namespace
}  // namespace pmubench
