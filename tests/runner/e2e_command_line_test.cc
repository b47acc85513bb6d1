// End to end, the command line: unknown flags and bad values of ours and
// of Google Benchmark (exit 2), no matching case, --help, the event list,
// the console's note on a debug build of Google Benchmark.
#include "tests/runner/e2e_fixture.h"

namespace pmubench::testing {
namespace {

TEST_F(E2eTest, UnknownFlagExitsTwo) {
  const Result r = RunCases("--countrs=task-clock");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--countrs=task-clock"));
  EXPECT_THAT(r.err, HasSubstr("--counters"));
}

TEST_F(E2eTest, BadFlagValueExitsTwo) {
  const Result r = RunCases("--pmubench_no_rdpmc=maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("pmubench_no_rdpmc"));
}

TEST_F(E2eTest, NoMatchingBenchmarkWritesNothingAndExitsTwo) {
  const std::string json_path = dir_ + "/run.json";
  const Result r =
      RunCases("--benchmark_filter=NoSuchCase --benchmark_out=" + json_path +
               " --benchmark_out_format=json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("run.json was not written"));
  EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty());
}

TEST_F(E2eTest, HelpListsOurFlagsAndGoogleBenchmarks) {
  const Result r = RunCases("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag :
       {"--counters", "--pmubench_no_rdpmc", "--pmubench_list_events",
        "--benchmark_filter", "--benchmark_out"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

TEST_F(E2eTest, ListEventsPrintsKnownNames) {
  const Result r = RunCases("--pmubench_list_events");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("page-faults\n"));
  EXPECT_THAT(r.out, HasSubstr("task-clock\n"));
}

TEST_F(E2eTest, ConsoleExplainsTheDebugLibraryWarning) {
  const std::string json_path = dir_ + "/run.json";
  const Result r =
      RunCases("--benchmark_filter=BM_Plain --benchmark_out=" + json_path +
               " --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err,
              Not(HasSubstr("***WARNING*** Library was built as DEBUG")));
  if (ReadFile(json_path).find("\"library_build_type\": \"debug\"") !=
      std::string::npos) {
    EXPECT_THAT(r.err, HasSubstr("built as DEBUG"));
    EXPECT_THAT(r.err, HasSubstr("per batch, not per iteration"));
  }
  EXPECT_THAT(r.err, HasSubstr("pmubench "));
}

// Google Benchmark alone exits 0 after its usage for the first three and
// aborts on a negative repetition count.
TEST_F(E2eTest, BadGoogleBenchmarkFlagValuesExitTwo) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--benchmark_format=xml", "console, json, csv"},
      {"--benchmark_out_format=yaml", "console, json, csv"},
      {"--benchmark_time_unit=min", "ns, us, ms, s"},
      {"--benchmark_repetitions=-3", ">= 1"},
      {"--benchmark_repetitions=0", ">= 1"},
      {"--benchmark_min_time=fast", "seconds"},
      {"--benchmark_color=blue", "auto, true, false"},
      {"--benchmark_list_tests=maybe", "true, false"},
      {"--benchmark_context=novalue", "key=value"},
      {"--benchmark_out", "needs a value"},
  };
  for (const auto& [arg, valid] : cases) {
    const Result r = RunCases("--benchmark_filter=BM_Plain " + arg);
    EXPECT_EQ(r.exit_code, 2) << arg;
    EXPECT_THAT(r.err, HasSubstr(arg)) << arg;
    EXPECT_THAT(r.err, HasSubstr(valid)) << arg;
    EXPECT_THAT(r.out, Not(HasSubstr("BM_Plain"))) << arg;
  }
}

TEST_F(E2eTest, BadGoogleBenchmarkEnvironmentDefaultsExitTwo) {
  for (const auto& [var, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"BENCHMARK_FORMAT", "xml"},
           {"BENCHMARK_REPETITIONS", "-3"},
           {"BENCHMARK_TIME_UNIT", "min"}}) {
    setenv(var.c_str(), value.c_str(), 1);
    const Result r = RunCases("--benchmark_filter=BM_Plain");
    unsetenv(var.c_str());
    EXPECT_EQ(r.exit_code, 2) << var;
    EXPECT_THAT(r.err, HasSubstr(var + "=" + value)) << r.err;
  }
}

// As --pmubench_simulate_iterations without --pmubench_simulate: a flag that
// would do nothing is refused before any case runs (or valgrind starts).
TEST_F(E2eTest, FlagsThatCannotTakeEffectExitTwo) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--pmubench_simulate --pmubench_multiplex",
       "under callgrind (--pmubench_simulate) no PMU counts"},
      {"--pmubench_simulate=cache --pmubench_multiplex=true",
       "drop --pmubench_multiplex"},
      {"--counters=none --pmubench_multiplex", "nothing is counted"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = RunCases("--benchmark_filter=BM_Plain " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << args;
    EXPECT_THAT(r.out, Not(HasSubstr("BM_Plain"))) << args;
  }
}

}  // namespace
}  // namespace pmubench::testing
