// The progress line: "pmubench: case 4 of 42 running, 12s elapsed, about
// 1m50s left", on stderr when stderr is a terminal, rewritten in place
// ("\r" then ANSI erase-line) after each case ends, and erased before the
// console prints a row and at the end. Nothing at all when stderr is not a
// terminal (a pipe, a file, CI logs).
//
// The estimate is linear: the mean time of the cases done so far times the
// cases left. It updates when a case ends, not while one runs: no thread
// wakes up during a measurement.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_PROGRESS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_PROGRESS_H_

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace pmubench {

// "8s", "1m05s", "2h03m".
std::string FormatDuration(double seconds);

// Seconds left after `done` of `total` cases took `elapsed` seconds; nullopt
// before the first case ends or when `total` is unknown (0).
std::optional<double> EstimateRemaining(int done, int total, double elapsed);

// The text of the line (no "\r", no newline).
std::string ProgressText(int done, int total, double elapsed);

// True when stderr is a terminal whose TERM is not "dumb".
bool StderrIsInteractive();

// How many benchmark instances the current --benchmark_filter selects, as
// --benchmark_list_tests would list them (Google Benchmark 1.7.1 keeps no
// other public count); 0 when none or unknown.
int CountSelectedBenchmarks();

// Their names, in the order Google Benchmark would run them.
std::vector<std::string> ListSelectedBenchmarks();

class ProgressLine {
 public:
  // `clock` returns seconds (steady); `out` is the terminal's stream.
  ProgressLine(std::ostream* out, bool enabled,
               std::function<double()> clock = nullptr);

  bool enabled() const { return enabled_; }
  void set_out(std::ostream* out) { out_ = out; }
  // Starts the clock and shows case 1 of `total`.
  void Start(int total);
  // One more case ended: show the next one.
  void CaseDone();
  // Erases the line (before other output, and at the end).
  void Clear();

 private:
  void Show();

  std::ostream* out_;
  bool enabled_;
  std::function<double()> clock_;
  double start_ = 0;
  int total_ = 0;
  int done_ = 0;
  bool shown_ = false;
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_PROGRESS_H_
