// pmubench_main's argument handling: what benchmark::Initialize leaves must
// be our Abseil flags; anything else is a clear error.
#include "framework/runner/cli/command_line.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(std::string, test_events, "", "Events for the test.");
ABSL_FLAG(bool, test_switch, false, "A switch for the test.");

namespace pmubench {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kAllowed = {"test_events", "test_switch"};

// argv from string literals (ParseOwnFlags does not modify argv).
class Argv {
 public:
  explicit Argv(std::vector<std::string> args) : args_(std::move(args)) {
    for (std::string& a : args_) ptrs_.push_back(a.data());
  }
  int argc() { return static_cast<int>(ptrs_.size()); }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> ptrs_;
};

class ParseOwnFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::SetFlag(&FLAGS_test_events, "");
    absl::SetFlag(&FLAGS_test_switch, false);
  }
};

TEST_F(ParseOwnFlagsTest, SetsAllowedFlags) {
  Argv a({"prog", "--test_events=task-clock,page-faults", "--test_switch"});
  ASSERT_TRUE(ParseOwnFlags(a.argc(), a.argv(), kAllowed).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_test_events), "task-clock,page-faults");
  EXPECT_TRUE(absl::GetFlag(FLAGS_test_switch));

  Argv b({"prog", "--notest_switch"});
  ASSERT_TRUE(ParseOwnFlags(b.argc(), b.argv(), kAllowed).ok());
  EXPECT_FALSE(absl::GetFlag(FLAGS_test_switch));
}

TEST_F(ParseOwnFlagsTest, RejectsUnknownPositionalAndBadValues) {
  Argv unknown({"prog", "--test_evnts=x"});
  absl::Status s = ParseOwnFlags(unknown.argc(), unknown.argv(), kAllowed);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("'--test_evnts=x'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("--test_events"));

  Argv positional({"prog", "stray"});
  EXPECT_FALSE(
      ParseOwnFlags(positional.argc(), positional.argv(), kAllowed).ok());

  Argv bad_bool({"prog", "--test_switch=maybe"});
  EXPECT_FALSE(ParseOwnFlags(bad_bool.argc(), bad_bool.argv(), kAllowed).ok());

  Argv no_value({"prog", "--test_events"});
  s = ParseOwnFlags(no_value.argc(), no_value.argv(), kAllowed);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("needs a value"));

  // A flag that exists but is not ours is not accepted either.
  Argv foreign({"prog", "--test_events=x", "--flagfile=/dev/null"});
  EXPECT_FALSE(ParseOwnFlags(foreign.argc(), foreign.argv(), kAllowed).ok());
}

TEST(PeekFlagTest, LastValueWins) {
  Argv a({"prog", "--benchmark_format=json", "--benchmark_color",
          "--benchmark_format=csv"});
  EXPECT_EQ(PeekFlag(a.argc(), a.argv(), "benchmark_format"), "csv");
  EXPECT_EQ(PeekFlag(a.argc(), a.argv(), "benchmark_color"), "true");
  EXPECT_EQ(PeekFlag(a.argc(), a.argv(), "benchmark_out"), std::nullopt);
}

TEST(HelpTest, ListsOwnFlagsWithHelpAndGoogleBenchmarkFlags) {
  Argv a({"prog", "--benchmark_filter=x", "--help"});
  EXPECT_TRUE(WantsHelp(a.argc(), a.argv()));
  Argv b({"prog", "--benchmark_filter=help"});
  EXPECT_FALSE(WantsHelp(b.argc(), b.argv()));
  const std::string text = HelpText("prog", kAllowed);
  EXPECT_THAT(text, HasSubstr("--test_events"));
  EXPECT_THAT(text, HasSubstr("Events for the test."));
  EXPECT_THAT(text, HasSubstr("--benchmark_filter"));
  EXPECT_THAT(text, HasSubstr("BUILD_WORKING_DIRECTORY"));
}

TEST(FlagOrEnvTest, FlagElseGoogleBenchmarksEnvironmentVariable) {
  Argv a({"prog", "--benchmark_out_format=csv"});
  setenv("BENCHMARK_OUT_FORMAT", "console", 1);
  setenv("BENCHMARK_OUT", "env.json", 1);
  EXPECT_EQ(FlagOrEnv(a.argc(), a.argv(), "benchmark_out_format"), "csv");
  EXPECT_EQ(FlagOrEnv(a.argc(), a.argv(), "benchmark_out"), "env.json");
  unsetenv("BENCHMARK_OUT_FORMAT");
  unsetenv("BENCHMARK_OUT");
  EXPECT_EQ(FlagOrEnv(a.argc(), a.argv(), "benchmark_out"), std::nullopt);
}

}  // namespace
}  // namespace pmubench
