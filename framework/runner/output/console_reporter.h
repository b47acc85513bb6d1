// ConsoleReporter for pmubench runs: Google Benchmark's console table with
// the counters of each run in event-set order, with their units
// (count_format.h), and a context header that says what is counted and how.
//
// Compact (the default): after Google Benchmark's columns and user counters,
//   "task-clock=812.3ns page-faults=8 context-switches=0"
// Tabular (--benchmark_counters_tabular=true): one column per counter, user
// counters first (as Google Benchmark orders them), then ours in event-set
// order; the header is ours, its columns as wide as the rows', and printed
// again when the columns change. The on-PMU fraction of a multiplexed run
// follows the columns as "on-PMU=50.0%".
//
// Debian's libbenchmark is a debug build, and its context header warns
// "***WARNING*** Library was built as DEBUG. Timings may be affected." That
// fact stays on screen, with what it means here: the timed loop is inline
// code compiled into the benchmark binary, and the library only runs at batch
// boundaries (timer start/stop), so it adds a per-batch cost, not a
// per-iteration one.
//
// On a terminal, stderr carries a progress line (progress.h) between rows.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_CONSOLE_REPORTER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_CONSOLE_REPORTER_H_

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/runner/output/count_format.h"
#include "framework/runner/output/describe.h"
#include "framework/runner/output/progress.h"

namespace pmubench {

class PmuConsoleReporter : public benchmark::ConsoleReporter {
 public:
  // `show_progress`: draw the progress line on the error stream; by
  // default when stderr is an interactive terminal.
  PmuConsoleReporter(OutputOptions options, SessionInfo session,
                     bool show_progress = StderrIsInteractive());

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;

 protected:
  void PrintRunData(const Run& run) override;
  void PrintHeader(const Run& run) override;

 private:
  // The names of our fields in the order of the event set `run`'s case
  // counts (its events, then its derived metrics), then any other of
  // session.counter_names; cached per case.
  const std::vector<std::string>& OrderFor(const Run& run);

  // `run`'s counters of ours, in that order (pmu_running_fraction
  // excluded), and `rest` set to `run` without them.
  std::vector<std::pair<std::string, benchmark::Counter>> SplitCounters(
      const Run& run, Run* rest);

  SessionInfo session_;
  ProgressLine progress_;
  std::map<std::string, std::vector<std::string>> order_cache_;
  // The order the last tabular header was printed for: two sets with the
  // same names in another order need a new header.
  std::vector<std::string> header_order_;
};

// Rewrites `basic_context` (the text of BenchmarkReporter::PrintBasicContext)
// for the pmubench header: the library's DEBUG warning line becomes a note on
// what it means for pmubench, and the pmubench_* custom-context lines are
// dropped (the header states them); other lines are kept.
std::string RewriteBasicContext(const std::string& basic_context);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_CONSOLE_REPORTER_H_
