// CapturedReporter: Google Benchmark's JSONReporter output handed to a sink
// as strict JSON, the 0/0 cv of a counter left out.
#include "framework/runner/output/captured_reporter.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Run = benchmark::BenchmarkReporter::Run;

Run MakeRun(const char* aggregate, double counter) {
  Run run;
  run.run_name.function_name = "BM_Zero";
  run.run_type = aggregate[0] == '\0' ? Run::RT_Iteration : Run::RT_Aggregate;
  run.aggregate_name = aggregate;
  run.iterations = 10;
  run.real_accumulated_time = 1e-6;
  run.cpu_accumulated_time = 1e-6;
  run.counters["never"] = benchmark::Counter(counter);
  return run;
}

TEST(CapturedReporterTest, JsonIsStrictAndDropsTheZeroOverZeroCv) {
  std::string text;
  CapturedReporter reporter(ReporterForFormat("json"), /*strict_json=*/true,
                            [&](std::string_view t) { text.append(t); });
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  reporter.ReportRuns({MakeRun("", inf), MakeRun("cv", nan)});
  EXPECT_EQ(reporter.runs(), 2u);
  EXPECT_THAT(text, Not(HasSubstr("NaN")));
  EXPECT_THAT(text, Not(HasSubstr("Infinity")));
  EXPECT_THAT(text, HasSubstr("\"never\": null"));  // the iteration run's inf
  const size_t cv = text.find("\"BM_Zero_cv\"");
  ASSERT_NE(cv, std::string::npos) << text;
  EXPECT_THAT(text.substr(cv), Not(HasSubstr("never")));
}

TEST(CapturedReporterTest, OtherFormatsPassThroughUnchanged) {
  std::string text;
  CapturedReporter reporter(ReporterForFormat("csv"), /*strict_json=*/false,
                            [&](std::string_view t) { text.append(t); });
  reporter.ReportRuns({MakeRun("cv", std::nan(""))});
  EXPECT_THAT(text, HasSubstr("BM_Zero_cv"));
  EXPECT_THAT(text, HasSubstr("never"));
}

}  // namespace
}  // namespace pmubench
