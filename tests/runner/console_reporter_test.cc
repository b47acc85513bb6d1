// The console reporter: compact counters after Google Benchmark's columns,
// and the DEBUG-library warning explained rather than hidden.
#include "framework/runner/output/console_reporter.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "framework/runner/plan/event_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/text_of_runs.h"

namespace pmubench {
namespace {

using ::pmubench::testing::FieldEnds;
using ::pmubench::testing::Lines;

using ::testing::HasSubstr;
using ::testing::Not;
using BenchRun = benchmark::BenchmarkReporter::Run;

TEST(FormatCountTest, FourSignificantDigitsWithSiSuffix) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(8), "8");
  EXPECT_EQ(FormatCount(0.25), "0.25");
  EXPECT_EQ(FormatCount(812.34), "812.3");
  EXPECT_EQ(FormatCount(1234.5), "1.234k");  // %.4g rounds half to even
  EXPECT_EQ(FormatCount(12345678), "12.35M");
  EXPECT_EQ(FormatCount(3e9), "3G");
}

TEST(RewriteBasicContextTest, ExplainsDebugWarningAndDropsOwnKeys) {
  const std::string basic =
      "Run on (2 X 2000 MHz CPU s)\n"
      "pmubench_version: 0.1.0\n"
      "***WARNING*** Library was built as DEBUG. Timings may be affected.\n"
      "Load Average: 1.00\n";
  const std::string text = RewriteBasicContext(basic);
  EXPECT_THAT(text, HasSubstr("Run on (2 X 2000 MHz CPU s)\n"));
  EXPECT_THAT(text, HasSubstr("Load Average: 1.00\n"));
  EXPECT_THAT(text, Not(HasSubstr("***WARNING***")));
  EXPECT_THAT(text, HasSubstr("built as DEBUG"));
  EXPECT_THAT(text, HasSubstr("per batch, not per iteration"));
  EXPECT_THAT(text, Not(HasSubstr("pmubench_version")));
}

TEST(RewriteBasicContextTest, ReleaseLibraryGetsNoNote) {
  const std::string basic = "Run on (2 X 2000 MHz CPU s)\n";
  EXPECT_EQ(RewriteBasicContext(basic), basic);
}

class ReporterTest : public ::testing::Test {
 protected:
  ReporterTest() {
    SessionInfo session;
    session.counter_names = {"task-clock", "page-faults",
                             internal::kRunningFractionName};
    internal::SetFacts set;
    set.events = {{.spec = "task-clock", .pmu_name = "software"},
                  {.spec = "page-faults", .pmu_name = "software"}};
    set.overhead = {1500, 0};
    session.facts.sets = {set};
    reporter_ = std::make_unique<PmuConsoleReporter>(
        benchmark::ConsoleReporter::OO_None, session, /*show_progress=*/false);
    reporter_->SetOutputStream(&out_);
    reporter_->SetErrorStream(&err_);
  }

  static BenchRun MakeRun(double fraction) {
    BenchRun run;
    run.run_name.function_name = "BM_Test";
    run.iterations = 100;
    run.real_accumulated_time = 1e-6;
    run.cpu_accumulated_time = 1e-6;
    run.counters["page-faults"] = benchmark::Counter(4);
    run.counters["task-clock"] = benchmark::Counter(1234.5);
    run.counters["user_counter"] = benchmark::Counter(7);
    run.counters[internal::kRunningFractionName] = benchmark::Counter(fraction);
    return run;
  }

  std::ostringstream out_;
  std::ostringstream err_;
  std::unique_ptr<PmuConsoleReporter> reporter_;
};

TEST_F(ReporterTest, CountersFollowInEventOrderOnOneLine) {
  reporter_->ReportRuns({MakeRun(1.0)});
  const std::string text = out_.str();
  const size_t start = text.find("BM_Test");
  ASSERT_NE(start, std::string::npos) << text;
  const std::string line = text.substr(start);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  const size_t user = line.find("user_counter=7");
  const size_t clock = line.find("task-clock=1.234us");  // ns: a time
  const size_t faults = line.find("page-faults=4");
  ASSERT_NE(user, std::string::npos) << line;
  ASSERT_NE(clock, std::string::npos) << line;
  ASSERT_NE(faults, std::string::npos) << line;
  EXPECT_LT(user, clock);    // Google Benchmark's own part first
  EXPECT_LT(clock, faults);  // then ours in event-set order
  EXPECT_THAT(line, Not(HasSubstr("on-PMU")));  // fully counted
  EXPECT_THAT(line, Not(HasSubstr("pmu_running_fraction")));
}

TEST_F(ReporterTest, MultiplexedRunShowsItsFraction) {
  reporter_->ReportRuns({MakeRun(0.5)});
  EXPECT_THAT(out_.str(), HasSubstr("on-PMU=50.0%"));
}

TEST_F(ReporterTest, FailedRunShowsTheErrorOnly) {
  BenchRun run = MakeRun(1.0);
  run.error_occurred = true;
  run.error_message = "deliberate failure";
  reporter_->ReportRuns({run});
  EXPECT_THAT(out_.str(), HasSubstr("ERROR OCCURRED: 'deliberate failure'"));
  EXPECT_THAT(out_.str(), Not(HasSubstr("page-faults=")));
}

TEST_F(ReporterTest, CvOfAnAlwaysZeroCounterIsNotNan) {
  BenchRun run = MakeRun(1.0);
  run.run_type = BenchRun::RT_Aggregate;
  run.aggregate_name = "cv";
  run.aggregate_unit = benchmark::kPercentage;
  run.counters["page-faults"] = benchmark::Counter(-std::nan(""));
  reporter_->ReportRuns({run});
  EXPECT_THAT(out_.str(), HasSubstr("page-faults=n/a"));
  EXPECT_THAT(out_.str(), Not(HasSubstr("nan")));
}

TEST_F(ReporterTest, NanUserCounterIsNotAvailableInBothLayouts) {
  BenchRun run = MakeRun(1.0);
  run.run_type = BenchRun::RT_Aggregate;
  run.aggregate_name = "cv";
  run.aggregate_unit = benchmark::kPercentage;
  run.counters["user_counter"] = benchmark::Counter(-std::nan(""));
  reporter_->ReportRuns({run});
  EXPECT_THAT(out_.str(), HasSubstr("user_counter=n/a "));
  EXPECT_THAT(out_.str(), Not(HasSubstr("nan")));

  SessionInfo session;
  session.counter_names = {"task-clock"};
  PmuConsoleReporter tabular(benchmark::ConsoleReporter::OO_Tabular, session,
                             /*show_progress=*/false);
  std::ostringstream out;
  tabular.SetOutputStream(&out);
  tabular.ReportRuns({run});
  EXPECT_THAT(out.str(), Not(HasSubstr("nan")));
  // The column keeps its width: "-nan%" (5 wide) becomes "  n/a".
  EXPECT_THAT(out.str(), HasSubstr("  n/a "));
}

TEST_F(ReporterTest, TabularHeaderColumnsMatchTheRows) {
  SessionInfo session;
  session.counter_names = {"task-clock", "page-faults",
                           internal::kRunningFractionName};
  PmuConsoleReporter tabular(benchmark::ConsoleReporter::OO_Tabular, session,
                             /*show_progress=*/false);
  std::ostringstream out;
  tabular.SetOutputStream(&out);
  tabular.SetErrorStream(&err_);
  BenchRun cv = MakeRun(1.0);
  cv.run_type = BenchRun::RT_Aggregate;
  cv.aggregate_name = "cv";
  cv.aggregate_unit = benchmark::kPercentage;
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 20;  // as RunSpecifiedBenchmarks sets it
  tabular.ReportContext(context);
  tabular.ReportRuns({MakeRun(1.0), cv, MakeRun(0.5)});
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_GE(lines.size(), 6u) << out.str();
  const std::string& header = lines[1];
  // User counter first, then ours in event-set order.
  const size_t user = header.find("user_counter");
  const size_t clock = header.find("task-clock");
  const size_t faults = header.find("page-faults");
  ASSERT_NE(faults, std::string::npos) << header;
  EXPECT_LT(user, clock);
  EXPECT_LT(clock, faults);
  EXPECT_THAT(header, Not(HasSubstr("pmu_running_fraction")));
  const std::vector<size_t> columns = FieldEnds(header);
  for (size_t i = 3; i < lines.size(); ++i) {
    // Each row's fields end where the header's do ("0.000 ns" is one
    // column of two fields, as is "1.234us": compare the last ones).
    std::string row = lines[i];
    const size_t on_pmu = row.find(" on-PMU=");
    if (on_pmu != std::string::npos) row = row.substr(0, on_pmu);
    const std::vector<size_t> ends = FieldEnds(row);
    ASSERT_GE(ends.size(), 3u) << row;
    EXPECT_EQ(ends.back(), columns.back()) << header << "\n" << row;
    EXPECT_EQ(ends[ends.size() - 2], columns[columns.size() - 2])
        << header << "\n"
        << row;
    EXPECT_EQ(ends[ends.size() - 3], columns[columns.size() - 3])
        << header << "\n"
        << row;
    EXPECT_THAT(row, Not(HasSubstr("=")));
  }
  EXPECT_THAT(lines[3], HasSubstr("1.234us"));
  EXPECT_THAT(lines[4], HasSubstr("%"));
  EXPECT_THAT(lines[5], HasSubstr("on-PMU=50.0%"));
}

}  // namespace
}  // namespace pmubench
