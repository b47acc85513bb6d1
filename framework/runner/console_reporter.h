// ConsoleReporter for pmubench runs: Google Benchmark's console table with the
// counters of each run appended compactly, in event-set order
// ("page-faults=8 task-clock=1.234k IPC=2.31"), and a context header that
// says what is counted and how.
//
// Debian's libbenchmark is a debug build, and its context header warns
// "***WARNING*** Library was built as DEBUG. Timings may be affected." That
// fact stays on screen, with what it means here: the timed loop is inline
// code compiled into the benchmark binary, and the library only runs at batch
// boundaries (timer start/stop), so it adds a per-batch cost, not a
// per-iteration one.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CONSOLE_REPORTER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CONSOLE_REPORTER_H_

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "framework/runner/session.h"

namespace pmubench {

class PmuConsoleReporter : public benchmark::ConsoleReporter {
 public:
  PmuConsoleReporter(OutputOptions options, SessionInfo session)
      : benchmark::ConsoleReporter(options), session_(std::move(session)) {}

  bool ReportContext(const Context& context) override;

 protected:
  void PrintRunData(const Run& run) override;

 private:
  SessionInfo session_;
};

// "8", "0.25", "812.3", "1.234k", "12.35M": at most 4 significant digits.
std::string FormatCount(double value);

// Rewrites `basic_context` (the text of BenchmarkReporter::PrintBasicContext)
// for the pmubench header: the library's DEBUG warning line becomes a note on
// what it means for pmubench, and the pmubench_* custom-context lines are
// dropped (the header states them); other lines are kept.
std::string RewriteBasicContext(const std::string& basic_context);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CONSOLE_REPORTER_H_
