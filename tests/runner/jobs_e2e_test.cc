// --pmubench_jobs end to end, natively (runner_jobs_cases, page faults on
// fresh pages: exact counts): N=2 reports the rows N=1 does, in the same
// order, with the same counts and the same console but for times (a
// family with a complexity fit runs whole: one BigO and one RMS row, as
// serially); a worker killed mid-run fails the case it ran by name, a new
// worker runs the rest, every other row stays and the exit status is 1; bad
// values exit 2 before any case runs; the warning of what parallel native runs
// perturb.
#include <unistd.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"

namespace {

using ::pmubench::testing::CasesBinary;
using ::pmubench::testing::JsonRunField;
using ::pmubench::testing::Lines;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::Result;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class JobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = pmubench::testing::MakePrivateDir("/tmp/pmubench-jobs-test.");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { pmubench::testing::RemoveDirAndFiles(dir_); }

  // The cases binary with `args` and --counters=page-faults, its JSON in
  // DIR/`out`.
  Result Run(const std::string& args, const std::string& out,
             const std::string& env = "") {
    return pmubench::testing::RunShell(
        "cd '" + dir_ + "' && " + env + " '" + CasesBinary() +
            "' --counters=page-faults --benchmark_out=" + out +
            " --benchmark_out_format=json " + args,
        dir_ + "/stdout");
  }
  std::string dir_;
};

// The console's table (from its first "---" line) with each row's two times
// (value and unit, twice) taken out.
std::vector<std::string> TableButTimes(const std::string& console) {
  std::vector<std::string> table;
  bool in_table = false;
  for (const std::string& line : Lines(console)) {
    in_table = in_table || line.rfind("---", 0) == 0;
    if (!in_table) continue;
    if (line.rfind("BM_", 0) != 0) {
      table.push_back(line);
      continue;
    }
    std::vector<std::string> words;
    std::string rest = line, kept;
    for (size_t at; (at = rest.find_first_not_of(' ')) != std::string::npos;) {
      rest = rest.substr(at);
      const size_t end = rest.find(' ');
      words.push_back(rest.substr(0, end));
      rest = end == std::string::npos ? "" : rest.substr(end);
    }
    for (size_t i = 0; i < words.size(); ++i) {
      if (i < 1 || i > 4) kept += words[i] + " ";
    }
    table.push_back(kept);
  }
  return table;
}

TEST_F(JobsTest, TwoWorkersReportWhatOneProcessDoesButForTimes) {
  const Result one = Run("--pmubench_jobs=1", "one.json");
  const Result two = Run("--pmubench_jobs=2", "two.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const std::string json_one = ReadFile(dir_ + "/one.json");
  const std::string json_two = ReadFile(dir_ + "/two.json");
  EXPECT_EQ(
      JsonRunField(json_two, "BM_JobsPages/1/iterations:16", "page-faults"), 1);
  EXPECT_EQ(
      JsonRunField(json_two, "BM_JobsPages/3/iterations:16", "page-faults"), 3);
  EXPECT_EQ(TableButTimes(two.out), TableButTimes(one.out));
  // 3 header lines, 9 rows, BM_JobsFit's BigO and RMS.
  EXPECT_EQ(TableButTimes(one.out).size(), 14u);
  // Rows in registration order, in the JSON too.
  size_t last = 0;
  for (const char* name :
       {"BM_JobsPages/1/iterations:16", "BM_JobsPages/3/iterations:16",
        "BM_JobsFit/1/iterations:16", "BM_JobsFit/2/iterations:16",
        "BM_JobsFit/4/iterations:16", "BM_JobsFit/iterations:16_BigO",
        "BM_JobsFit/iterations:16_RMS", "BM_JobsKillsItself/iterations:16",
        "BM_JobsNops/iterations:16", "BM_JobsAfterKill/iterations:16",
        "BM_JobsMoreNops/iterations:16"}) {
    const size_t at = json_two.find(std::string("\"name\": \"") + name + "\"");
    ASSERT_NE(at, std::string::npos) << name;
    EXPECT_GT(at, last) << name;
    last = at;
  }
}

TEST_F(JobsTest, NativeWorkersSayWhatTheyPerturb) {
  const Result two = Run("--pmubench_jobs=2", "two.json");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_THAT(two.err, HasSubstr("cycles, cache and branch misses"));
  EXPECT_THAT(two.err, HasSubstr("instruction counts stay exact"));
  const Result one = Run("", "one.json");
  EXPECT_THAT(one.err, Not(HasSubstr("side by side")));
}

// A sampled profile re-runs each case in the process that reports it: no
// workers (under --pmubench_simulate the profile travels with its worker's
// rows: tests/python/test_jobs_simulate.py).
TEST_F(JobsTest, ASampledProfileWithWorkersExitsTwoBeforeAnyCaseRuns) {
  const Result run =
      Run("--pmubench_jobs=2 --pmubench_profile=task-clock", "out.json");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--pmubench_jobs=2 with a sampled "
                                 "--pmubench_profile"));
  EXPECT_EQ(access((dir_ + "/out.json").c_str(), F_OK), -1);
  EXPECT_THAT(run.out, Not(HasSubstr("BM_Jobs")));
}

TEST_F(JobsTest, AKilledWorkerFailsItsCaseByNameAndTheOtherRowsStay) {
  const Result run =
      Run("--pmubench_jobs=2", "out.json", "PMUBENCH_JOBS_TEST_KILL=1");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string json = ReadFile(dir_ + "/out.json");
  EXPECT_EQ(JsonRunField(json, "BM_JobsPages/3/iterations:16", "page-faults"),
            3);
  // Run after the kill, by whichever worker took it.
  EXPECT_EQ(JsonRunField(json, "BM_JobsAfterKill/iterations:16", "page-faults"),
            0);
  EXPECT_EQ(JsonRunField(json, "BM_JobsMoreNops/iterations:16", "page-faults"),
            0);
  const std::string lost = "BM_JobsKillsItself/iterations:16";
  const size_t at = json.find("\"name\": \"" + lost + "\"");
  ASSERT_NE(at, std::string::npos);
  const std::string row = json.substr(at, json.find('}', at) - at);
  EXPECT_THAT(row, HasSubstr("\"error_occurred\": true"));
  EXPECT_THAT(row, HasSubstr("killed by signal 9"));
  const size_t after =
      json.find("\"name\": \"BM_JobsAfterKill/iterations:16\"");
  ASSERT_NE(after, std::string::npos);
  EXPECT_THAT(json.substr(after, json.find('}', after) - after),
              Not(HasSubstr("error_occurred\": true")));
  EXPECT_THAT(run.out, HasSubstr(lost));
  EXPECT_THAT(run.err,
              ContainsRegex("worker [12] of 2 ended: killed by signal "
                            "9 \\(Killed\\); 1 of its [0-9]+ cases failed "
                            "with it: BM_JobsKillsItself/"));
}

TEST_F(JobsTest, BadValuesExitTwoBeforeAnyCaseRuns) {
  for (const char* bad : {"0", "two", "-2"}) {
    const Result run = Run(std::string("--pmubench_jobs=") + bad, "out.json");
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_THAT(run.err, HasSubstr(std::string("--pmubench_jobs=") + bad +
                                   ": give the number of worker processes"));
    EXPECT_EQ(access((dir_ + "/out.json").c_str(), F_OK), -1) << bad;
    EXPECT_THAT(run.out, Not(HasSubstr("BM_Jobs")));
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  pmubench::testing::CasesBinary() =
      pmubench::testing::AbsolutePath(pmubench::testing::CasesBinary());
  return RUN_ALL_TESTS();
}
