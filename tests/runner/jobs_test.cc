// --pmubench_jobs' pure parts: the flag (cli/jobs_flag.h), the units of
// work (plan/job_split.h: an instance alone, a family that must stay whole
// in one unit) and the order workers take them (largest first when costs
// are given), and the runs a
// worker hands its parent (run/run_record.h: every field a reporter reads
// back exactly, a record cut short dropped).
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "framework/runner/cli/jobs_flag.h"
#include "framework/runner/plan/job_split.h"
#include "framework/runner/run/run_record.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(JobsFlagTest, DefaultsToTheCpusUnderSimulationAndOneNatively) {
  EXPECT_EQ(*ParseJobsFlag("", /*simulating=*/true, 4), 4);
  EXPECT_EQ(*ParseJobsFlag("", /*simulating=*/false, 4), 1);
  EXPECT_EQ(*ParseJobsFlag("3", /*simulating=*/false, 4), 3);
  EXPECT_GE(CpusAllowed(), 1);
}

TEST(JobsFlagTest, RejectsZeroAndWhatIsNotANumberNamingTheFix) {
  for (const char* bad : {"0", "-1", "x", "2x", " 2", "257", "1.5"}) {
    absl::StatusOr<int> jobs = ParseJobsFlag(bad, true, 2);
    ASSERT_FALSE(jobs.ok()) << bad;
    EXPECT_THAT(jobs.status().message(),
                HasSubstr(std::string("--pmubench_jobs=") + bad +
                          ": give the number of worker processes"));
    EXPECT_THAT(jobs.status().message(), HasSubstr("--pmubench_jobs=1"));
  }
}

TEST(JobsFlagTest, TheNativeWarningNamesWhatParallelRunsPerturb) {
  const std::string warning = NativeJobsWarning(2);
  for (const char* word : {"times", "cycles", "cache and branch misses",
                           "instruction counts stay exact"}) {
    EXPECT_THAT(warning, HasSubstr(word));
  }
}

const std::vector<std::string> kSuite = {"BM_A/1", "BM_A/2", "BM_A/3", "BM_B",
                                         "BM_C/1", "BM_C/2", "BM_D"};

bool NoneWhole(std::string_view) { return false; }

TEST(WorkUnitsTest, AnInstanceAloneUnlessItsFamilyMustStayWhole) {
  EXPECT_THAT(WorkUnits(kSuite, NoneWhole),
              ElementsAre(ElementsAre("BM_A/1"), ElementsAre("BM_A/2"),
                          ElementsAre("BM_A/3"), ElementsAre("BM_B"),
                          ElementsAre("BM_C/1"), ElementsAre("BM_C/2"),
                          ElementsAre("BM_D")));
  const auto units = WorkUnits(
      kSuite, [](std::string_view family) { return family == "BM_A"; });
  EXPECT_THAT(units, ElementsAre(ElementsAre("BM_A/1", "BM_A/2", "BM_A/3"),
                                 ElementsAre("BM_B"), ElementsAre("BM_C/1"),
                                 ElementsAre("BM_C/2"), ElementsAre("BM_D")));
}

TEST(WorkUnitsTest, ANameTwoRegistrationsShareIsOneInstance) {
  EXPECT_THAT(WorkUnits({"BM_A", "BM_B", "BM_A"}, NoneWhole),
              ElementsAre(ElementsAre("BM_A"), ElementsAre("BM_B")));
}

TEST(DispatchOrderTest, RegistrationOrderWithoutCosts) {
  const auto units = WorkUnits(kSuite, NoneWhole);
  EXPECT_THAT(DispatchOrder(units, std::nullopt),
              ElementsAre(0u, 1u, 2u, 3u, 4u, 5u, 6u));
}

TEST(DispatchOrderTest, UnpricedFirstThenLongestFirstTiesInOrder) {
  const auto units = WorkUnits(
      kSuite, [](std::string_view family) { return family == "BM_A"; });
  // Units: A (1+1+1 = 3), B (5), C/1 (1), C/2 (unpriced), D (3).
  const std::map<std::string, double> costs = {{"BM_A/1", 1}, {"BM_A/2", 1},
                                               {"BM_A/3", 1}, {"BM_B", 5},
                                               {"BM_C/1", 1}, {"BM_D", 3}};
  EXPECT_THAT(DispatchOrder(units, costs), ElementsAre(3u, 1u, 0u, 4u, 2u));
  EXPECT_EQ(UnitCost(units[0], costs), 3.0);
  EXPECT_EQ(UnitCost(units[3], costs), std::nullopt);
}

ReportedRun SampleRun() {
  ReportedRun run;
  run.run_name.function_name = "BM_Odd\nname:7 ";
  run.run_name.args = "64";
  run.run_name.threads = "threads:2";
  run.family_index = 3;
  run.per_family_instance_index = 1;
  run.run_type = ReportedRun::RT_Aggregate;
  run.aggregate_name = "stddev";
  run.aggregate_unit = benchmark::kPercentage;
  run.report_label = "label";
  run.error_occurred = true;
  run.error_message = "it: failed";
  run.iterations = 123456789012;
  run.threads = 2;
  run.repetition_index = 4;
  run.repetitions = 5;
  run.time_unit = benchmark::kMicrosecond;
  run.real_accumulated_time = 0.1 + 0.2;  // not a short decimal
  run.cpu_accumulated_time = 1e-300;
  run.max_heapbytes_used = 17;
  run.complexity = benchmark::oNSquared;
  run.complexity_n = 99;
  run.report_big_o = true;
  run.counters["callgrind/instructions/"] = benchmark::Counter(
      102.2, benchmark::Counter::kAvgIterations, benchmark::Counter::kIs1024);
  run.counters["allocs_per_iter"] = benchmark::Counter(0);
  run.allocs_per_iter = 2.5;
  return run;
}

TEST(RunRecordTest, EveryFieldAReporterReadsComesBackExactly) {
  const ReportedRun run = SampleRun();
  const auto records =
      DecodeRuns(EncodeRuns({run, ReportedRun()}) + EncodeRuns({run}));
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[0].size(), 2u);
  const ReportedRun& back = records[0][0];
  EXPECT_EQ(back.benchmark_name(), run.benchmark_name());
  EXPECT_EQ(back.run_name.threads, "threads:2");
  EXPECT_EQ(back.family_index, 3);
  EXPECT_EQ(back.per_family_instance_index, 1);
  EXPECT_EQ(back.run_type, ReportedRun::RT_Aggregate);
  EXPECT_EQ(back.aggregate_unit, benchmark::kPercentage);
  EXPECT_EQ(back.report_label, "label");
  EXPECT_TRUE(back.error_occurred);
  EXPECT_EQ(back.error_message, "it: failed");
  EXPECT_EQ(back.iterations, 123456789012);
  EXPECT_EQ(back.repetition_index, 4);
  EXPECT_EQ(back.repetitions, 5);
  EXPECT_EQ(back.time_unit, benchmark::kMicrosecond);
  EXPECT_EQ(back.real_accumulated_time, 0.1 + 0.2);
  EXPECT_EQ(back.cpu_accumulated_time, 1e-300);
  EXPECT_EQ(back.complexity, benchmark::oNSquared);
  EXPECT_EQ(back.complexity_n, 99);
  EXPECT_TRUE(back.report_big_o);
  EXPECT_FALSE(back.report_rms);
  EXPECT_EQ(back.allocs_per_iter, 2.5);
  const benchmark::Counter& c = back.counters.at("callgrind/instructions/");
  EXPECT_EQ(c.value, 102.2);
  EXPECT_EQ(c.flags, benchmark::Counter::kAvgIterations);
  EXPECT_EQ(c.oneK, benchmark::Counter::kIs1024);
  EXPECT_EQ(back.counters.size(), 2u);
  EXPECT_EQ(records[0][1].benchmark_name(), ReportedRun().benchmark_name());
}

TEST(RunRecordTest, ARecordCutShortIsDroppedAndTheOnesBeforeItKept) {
  const std::string one = EncodeRuns({SampleRun()});
  const std::string two = EncodeRuns({SampleRun()});
  for (size_t cut = 0; cut < two.size(); ++cut) {
    const auto records = DecodeRuns(one + two.substr(0, cut));
    EXPECT_EQ(records.size(), 1u) << "cut at " << cut;
  }
  EXPECT_THAT(DecodeRuns("not a record"), IsEmpty());
}

TEST(RunRecordTest, AWorkersRenderedProfileComesBackWholeAndACutOneIsDropped) {
  const ProfileRecord first{"BM_A/16", "  profile ...\n    100.00%  7  A()\n",
                            ",\n      \"pmubench_profile\": [{\"x\": 1}]"};
  const ProfileRecord second{"BM_B", "", ""};
  const std::string text = EncodeProfile(first) + EncodeProfile(second);
  const std::vector<ProfileRecord> back = DecodeProfiles(text);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].run_name, first.run_name);
  EXPECT_EQ(back[0].console, first.console);
  EXPECT_EQ(back[0].json, first.json);
  EXPECT_EQ(back[1].run_name, "BM_B");
  const std::string one = EncodeProfile(first);
  for (size_t cut = 0; cut < one.size(); ++cut) {
    EXPECT_EQ(DecodeProfiles(one + one.substr(0, cut)).size(), 1u)
        << "cut at " << cut;
  }
  EXPECT_THAT(DecodeProfiles(EncodeRuns({SampleRun()})), IsEmpty());
}

}  // namespace
}  // namespace pmubench::internal
