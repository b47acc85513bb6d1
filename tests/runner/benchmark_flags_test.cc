// ValidateBenchmarkFlags: Google Benchmark's flags checked before it parses
// them, in argv and in the environment variables it reads as defaults.
#include "framework/runner/cli/benchmark_flags.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench {
namespace {

using ::testing::HasSubstr;

absl::Status Validate(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ValidateBenchmarkFlags(static_cast<int>(argv.size()), argv.data());
}

TEST(ValidateBenchmarkFlagsTest, AcceptsGoodValues) {
  EXPECT_TRUE(
      Validate({"--benchmark_format=json", "--benchmark_out_format=csv",
                "--benchmark_time_unit=us", "--benchmark_repetitions=3",
                "--benchmark_min_time=0.01", "--benchmark_min_warmup_time=0",
                "--benchmark_color=auto", "--benchmark_list_tests",
                "--benchmark_counters_tabular=Yes",
                "--benchmark_context=a=1,b=2", "--v=1",
                "--benchmark_filter=BM_.*", "--counters=x"})
          .ok());
}

TEST(ValidateBenchmarkFlagsTest, NamesFlagValueAndWhatIsValid) {
  const struct {
    const char* arg;
    const char* valid;
  } kCases[] = {
      {"--benchmark_format=xml", "console, json, csv"},
      {"--benchmark_out_format=", "console, json, csv"},
      {"--benchmark_time_unit=sec", "ns, us, ms, s"},
      {"--benchmark_repetitions=-3", ">= 1"},
      {"--benchmark_repetitions=99999999999", ">= 1"},
      {"--benchmark_repetitions=2x", ">= 1"},
      {"--benchmark_min_time=-1", ">= 0"},
      {"--benchmark_min_time=nan", ">= 0"},
      {"--benchmark_min_warmup_time=1s", ">= 0"},
      {"--benchmark_color=", "auto, true, false"},
      {"--benchmark_report_aggregates_only=sure", "true, false"},
      {"--benchmark_context=a=1,a=2", "each key once"},
      {"--benchmark_perf_counters=CYCLES", "--counters"},
      {"--v=-1", ">= 0"},
  };
  for (const auto& c : kCases) {
    const absl::Status s = Validate({"--benchmark_format=json", c.arg});
    ASSERT_FALSE(s.ok()) << c.arg;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.arg));
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.valid));
  }
}

TEST(ValidateBenchmarkFlagsTest, NonBoolFlagNeedsAValue) {
  const absl::Status s = Validate({"--benchmark_out"});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("--benchmark_out=VALUE"));
}

TEST(ValidateBenchmarkFlagsTest, ChecksEnvironmentUnlessTheFlagIsGiven) {
  setenv("BENCHMARK_REPETITIONS", "-3", 1);
  const absl::Status from_env = Validate({});
  const absl::Status overridden = Validate({"--benchmark_repetitions=2"});
  unsetenv("BENCHMARK_REPETITIONS");
  ASSERT_FALSE(from_env.ok());
  EXPECT_THAT(std::string(from_env.message()),
              HasSubstr("BENCHMARK_REPETITIONS=-3"));
  EXPECT_THAT(std::string(from_env.message()),
              HasSubstr("--benchmark_repetitions"));
  EXPECT_TRUE(overridden.ok()) << overridden;
}

TEST(BenchmarkFlagIsTrueTest, ReadsLikeGoogleBenchmark) {
  for (const char* yes : {"", "true", "TRUE", "yes", "on", "1", "t", "Y"}) {
    EXPECT_TRUE(BenchmarkFlagIsTrue(yes)) << yes;
  }
  for (const char* no : {"false", "False", "no", "OFF", "0", "f", "N"}) {
    EXPECT_FALSE(BenchmarkFlagIsTrue(no)) << no;
  }
}

}  // namespace
}  // namespace pmubench
