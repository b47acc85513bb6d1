// The console as a user sees it, from a binary linked with pmubench_main
// (e2e_cases.cc) run as a subprocess: tabular header columns over the row
// columns, counters in event-set order with units, never "nan", the
// progress line only on a terminal, and --pmubench_list_events grouped.
//
// The binary's path: cases_binary.h.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"

namespace {

using ::pmubench::testing::CasesBinary;
using ::pmubench::testing::FieldEnds;
using ::pmubench::testing::Lines;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::Result;
using ::pmubench::testing::RunShell;

using ::testing::HasSubstr;
using ::testing::Not;

class ConsoleE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
    ASSERT_FALSE(CasesBinary().empty())
        << "pass --e2e_cases=PATH to the e2e_cases binary";
    out_ = ::testing::TempDir() + "pmubench_console_e2e_" +
           std::to_string(getpid());
  }

  // Runs `command` through sh with stdout and stderr to files.
  Result Run(const std::string& command) { return RunShell(command, out_); }

  Result RunCases(const std::string& args) {
    return Run("TERM=xterm '" + CasesBinary() + "' " + args);
  }

  std::string out_;
};

// Software events in an order that is not alphabetical.
constexpr char kEvents[] = "--counters=task-clock,page-faults,context-switches";

TEST_F(ConsoleE2eTest, TabularHeaderColumnsAreTheRowsColumns) {
  const Result r =
      RunCases(std::string(kEvents) +
               " --benchmark_filter='BM_TouchPages|BM_ZeroCounter'"
               " --benchmark_repetitions=3 --benchmark_counters_tabular=true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("nan")));
  std::vector<size_t> columns;
  std::string header;
  int rows = 0;
  for (const std::string& line : Lines(r.out)) {
    if (line.rfind("Benchmark ", 0) == 0) {
      header = line;
      columns = FieldEnds(line);
      continue;
    }
    if (line.rfind("BM_TouchPages", 0) != 0) continue;
    ++rows;
    // Our columns in event-set order, the last three of the header.
    ASSERT_GE(columns.size(), 3u) << header;
    const size_t clock = header.find(" task-clock");
    const size_t faults = header.find(" page-faults");
    const size_t switches = header.find(" context-switches");
    ASSERT_NE(switches, std::string::npos) << header;
    EXPECT_LT(clock, faults) << header;
    EXPECT_LT(faults, switches) << header;
    EXPECT_THAT(line, Not(HasSubstr("=")));  // no compact name=value
    const std::vector<size_t> ends = FieldEnds(line);
    ASSERT_GE(ends.size(), 3u) << line;
    for (size_t k = 1; k <= 3; ++k) {
      EXPECT_EQ(ends[ends.size() - k], columns[columns.size() - k])
          << header << "\n"
          << line;
    }
    EXPECT_EQ(line.size(), header.size()) << header << "\n" << line;
  }
  EXPECT_EQ(rows, 3 + 4) << r.out;  // 3 repetitions and 4 aggregates
}

TEST_F(ConsoleE2eTest, CompactCountersInEventSetOrderWithUnits) {
  const Result r =
      RunCases(std::string(kEvents) +
               " --benchmark_filter=BM_TouchPages --benchmark_repetitions=2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("nan")));
  int rows = 0;
  for (const std::string& line : Lines(r.out)) {
    if (line.rfind("BM_TouchPages", 0) != 0) continue;
    ++rows;
    const size_t clock = line.find(" task-clock=");
    const size_t faults = line.find(" page-faults=");
    const size_t switches = line.find(" context-switches=");
    ASSERT_NE(clock, std::string::npos) << line;
    ASSERT_NE(switches, std::string::npos) << line;
    EXPECT_LT(clock, faults) << line;
    EXPECT_LT(faults, switches) << line;
    // task-clock is in nanoseconds: a time ("812ns", "1.2us") or, on the
    // cv row, a percentage.
    const std::string value =
        line.substr(clock + 12, line.find(' ', clock + 1) - clock - 12);
    EXPECT_THAT(value, ::testing::ContainsRegex("(s|%)$")) << line;
  }
  EXPECT_EQ(rows, 2 + 4) << r.out;
  // The header says how events are read and the overhead's units.
  EXPECT_THAT(r.err, HasSubstr("(read with read(2)"));
  EXPECT_THAT(r.err, HasSubstr("subtracted per batch (the counts of an empty "
                               "range-for batch through State): task-clock="));
  EXPECT_THAT(r.err, Not(HasSubstr("read by")));
}

// Each case's counters in its own set's order, also when another case
// counts the same events in another order.
TEST_F(ConsoleE2eTest, EachCaseInItsOwnSetsOrder) {
  // BM_OwnEvents counts "page-faults,task-clock"; BM_TouchPages the default
  // set (task-clock first where there is no hardware PMU).
  const std::string filter = " --benchmark_filter='BM_TouchPages|BM_OwnEvents'";
  const Result compact = RunCases(filter);
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  bool seen = false;
  for (const std::string& line : Lines(compact.out)) {
    if (line.rfind("BM_OwnEvents", 0) != 0) continue;
    seen = true;
    const size_t faults = line.find(" page-faults=");
    const size_t clock = line.find(" task-clock=");
    ASSERT_NE(clock, std::string::npos) << line;
    EXPECT_LT(faults, clock) << line;
  }
  EXPECT_TRUE(seen) << compact.out;

  const Result tabular =
      RunCases(filter + " --benchmark_counters_tabular=true");
  ASSERT_EQ(tabular.exit_code, 0) << tabular.err;
  std::string header;
  seen = false;
  for (const std::string& line : Lines(tabular.out)) {
    if (line.rfind("Benchmark ", 0) == 0) header = line;
    if (line.rfind("BM_OwnEvents", 0) != 0) continue;
    seen = true;
    const size_t faults = header.find(" page-faults");
    const size_t clock = header.find(" task-clock");
    ASSERT_NE(clock, std::string::npos) << header;
    EXPECT_LT(faults, clock) << header;
    EXPECT_EQ(line.size(), header.size()) << header << "\n" << line;
  }
  EXPECT_TRUE(seen) << tabular.out;
}

TEST_F(ConsoleE2eTest, NoProgressLineWhenStderrIsNotATerminal) {
  const Result r =
      RunCases(std::string(kEvents) + " --benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("\r")));
  EXPECT_THAT(r.err, Not(HasSubstr("of 1 running")));
}

TEST_F(ConsoleE2eTest, ProgressLineOnATerminalIsErasedAtTheEnd) {
  if (access("/usr/bin/script", X_OK) != 0) {
    GTEST_SKIP() << "needs script(1) from util-linux to run under a pty";
  }
  // script(1) runs the command with stdout and stderr on a pseudo-terminal
  // and copies what it writes.
  const Result r = Run(
      "TERM=xterm /usr/bin/script -qec \"'" + CasesBinary() + "' " + kEvents +
      " --benchmark_color=false"
      " --benchmark_filter='BM_TouchPages|BM_OwnEvents'\" /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\r\033[Kpmubench: case 1 of 2 running, "));
  EXPECT_THAT(r.out, HasSubstr("\r\033[Kpmubench: case 2 of 2 running, "));
  // Erased before each row: rows start at column 0 of a clean line.
  EXPECT_THAT(r.out, HasSubstr("\r\033[KBM_OwnEvents"));
  EXPECT_THAT(r.out, Not(HasSubstr("pmubench: case 3")));
  // Nothing after the last row: the line is not left behind.
  const size_t last = r.out.rfind("BM_OwnEvents");
  ASSERT_NE(last, std::string::npos);
  EXPECT_THAT(r.out.substr(last), Not(HasSubstr("pmubench: case")));
}

TEST_F(ConsoleE2eTest, ListEventsGroupedAndTried) {
  const Result r = RunCases("--pmubench_list_events");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Software events:\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  task-clock\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("dummy")));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "[0-9]+ of [0-9]+ events can be counted"));
  const size_t software = r.out.find("Software events:");
  const size_t refused = r.out.find("Cannot be counted");
  if (refused != std::string::npos) {
    EXPECT_LT(software, refused);
    // Each refused name sits under an errno name.
    EXPECT_THAT(r.out.substr(refused), ::testing::ContainsRegex("\n  E[A-Z]+"));
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  return RUN_ALL_TESTS();
}
