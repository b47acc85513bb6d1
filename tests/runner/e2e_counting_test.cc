// End to end, what a run counts and says about it: the JSON file's counters
// and context, bad or impossible event lists (exit 2 before any run), the
// fallbacks without a PMU or without permission, --counters=none.
#include "tests/runner/e2e_fixture.h"

namespace pmubench::testing {
namespace {

TEST_F(E2eTest, JsonHoldsCountersContextAndFailedCase) {
  const std::string json_path = dir_ + "/run.json";
  const Result r = RunCases(std::string("--counters=") + kSoftware +
                            " --benchmark_out=" + json_path +
                            " --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Written whole, under its name, and no temporary file left beside it.
  EXPECT_THAT(ListDir(dir_), ::testing::ElementsAre("run.json"));
  const std::string json = ReadFile(json_path);
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.substr(json.size() - 4), "]\n}\n");

  const std::string touch = "BM_TouchPages/4/iterations:64";
  EXPECT_EQ(JsonRunField(json, touch, "page-faults"), 4.0);
  EXPECT_GT(JsonRunField(json, touch, "task-clock"), 0.0);
  EXPECT_GE(JsonRunField(json, touch, "context-switches"), 0.0);
  EXPECT_EQ(JsonRunField(json, touch, "pmu_running_fraction"), 1.0);
  EXPECT_EQ(JsonRunField(json, "BM_OwnEvents/iterations:32", "page-faults"),
            2.0);
  // A plain BENCHMARK case reports time only.
  EXPECT_TRUE(std::isnan(
      JsonRunField(json, "BM_Plain/iterations:1000", "page-faults")));
  EXPECT_GT(JsonRunField(json, "BM_Plain/iterations:1000", "real_time"), 0.0);

  // The failed case is reported as failed; the cases after it still ran.
  const size_t failed = json.find("\"name\": \"BM_Fails/iterations:8\"");
  ASSERT_NE(failed, std::string::npos);
  const std::string failed_block =
      json.substr(failed, json.find('}', failed) - failed);
  EXPECT_THAT(failed_block, HasSubstr("\"error_occurred\": true"));
  EXPECT_THAT(failed_block,
              HasSubstr("\"error_message\": \"deliberate failure\""));

  for (const char* key : {"\"pmubench_version\": \"", "\"pmubench_pmus\": \"",
                          "\"pmubench_events\": \"task-clock (pmu=software",
                          "\"pmubench_pinned\": \"true\"",
                          "\"pmubench_exclude_kernel\": \"true\"",
                          "\"pmubench_read_overhead\": \"task-clock="}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
  EXPECT_THAT(json, Not(HasSubstr("pmubench_notice")));
  // Every PMU case's family mapped to its source file; plain BENCHMARK
  // cases are not PMU cases.
  const size_t files = json.find("\"pmubench_case_files\": \"");
  ASSERT_NE(files, std::string::npos);
  const std::string case_files =
      json.substr(files, json.find('\n', files) - files);
  EXPECT_THAT(case_files, HasSubstr("BM_TouchPages=e2e_cases;"));
  EXPECT_THAT(case_files, HasSubstr("BM_OwnEvents=e2e_cases;"));
  EXPECT_THAT(case_files, Not(HasSubstr("BM_Plain")));
}

TEST_F(E2eTest, BadSpecExitsTwoBeforeAnyBenchmarkRuns) {
  const std::string json_path = dir_ + "/run.json";
  const Result r = RunCases(
      "--counters=task-clock,no-such-event "
      "--benchmark_out=" +
      json_path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no-such-event"));
  EXPECT_THAT(r.err, HasSubstr("error:"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchPages")));
  EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty()) << "nothing written";
}

TEST_F(E2eTest, MalformedSpecExitsTwo) {
  const Result r = RunCases("--counters=software/config=/");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("software/config=/"));
}

TEST_F(E2eTest, HardwareCountersWithoutPmuExitTwo) {
  if (HasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a hardware PMU: cycles can be counted";
  }
  const Result r = RunCases("--counters=cycles,instructions");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'cycles' needs a hardware PMU"));
  EXPECT_THAT(r.err, HasSubstr("task-clock"));  // the remedy
}

// Where this user may not open perf events at all (EACCES from
// perf_event_open: perf_event_paranoid 3 on Debian kernels), the default
// events do not stop the run: it goes on without counters and says why,
// with the remedy. An explicit --counters list is an error, exit 2.
TEST_F(E2eTest, NotPermittedRunsWithoutCountersOrFailsForExplicitCounters) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the seccomp filter of e2e_cases is written for x86-64";
#endif
  const std::string json = dir_ + "/denied.json";
  setenv("PMUBENCH_TEST_DENY_PERF_EVENT_OPEN", "1", 1);
  const Result ran = RunCases(
      "--benchmark_filter=BM_TouchPages "
      "--benchmark_out='" +
      json + "'");
  const Result explicit_list =
      RunCases("--counters=page-faults --benchmark_filter=BM_TouchPages");
  unsetenv("PMUBENCH_TEST_DENY_PERF_EVENT_OPEN");

  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("running without counters")) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("perf_event_paranoid")) << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("BM_TouchPages"));
  const std::string written = ReadFile(json);
  EXPECT_THAT(written, HasSubstr("running without counters"));
  EXPECT_TRUE(std::isnan(
      JsonRunField(written, "BM_TouchPages/4/iterations:64", "page-faults")))
      << "no counter may be reported when none could be opened";

  EXPECT_EQ(explicit_list.exit_code, 2) << explicit_list.err;
  EXPECT_THAT(explicit_list.err, HasSubstr("perf_event_paranoid"));
}

TEST_F(E2eTest, DefaultFallsBackWithOneNotice) {
  if (HasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a hardware PMU: no fallback";
  }
  const Result r = RunCases("--benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t notices = 0;
  for (size_t at = r.err.find("no hardware PMU"); at != std::string::npos;
       at = r.err.find("no hardware PMU", at + 1)) {
    ++notices;
  }
  EXPECT_EQ(notices, 1u) << r.err;
  EXPECT_THAT(r.out, HasSubstr("page-faults=4"));
  EXPECT_THAT(r.out, HasSubstr("task-clock="));
}

TEST_F(E2eTest, DefaultIsHardwareSetWithPmu) {
  if (!HasHardwarePmu()) {
    GTEST_SKIP() << "no hardware PMU: /sys/bus/event_source/devices/cpu "
                    "missing";
  }
  const Result r = RunCases("--benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("instructions="));
  EXPECT_THAT(r.out, HasSubstr("IPC="));
  EXPECT_THAT(r.err, Not(HasSubstr("no hardware PMU")));
}

TEST_F(E2eTest, CountersNoneReportsTimeOnly) {
  const Result r = RunCases(
      "--counters=none --benchmark_format=json "
      "--benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"real_time\""));
  EXPECT_THAT(r.out, Not(HasSubstr("\"page-faults\"")));
  EXPECT_THAT(r.out, Not(HasSubstr("pmu_running_fraction")));
}

}  // namespace
}  // namespace pmubench::testing
