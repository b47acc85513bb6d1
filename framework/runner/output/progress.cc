#include "framework/runner/output/progress.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

// Google Benchmark 1.7.1 defines its flags as exported globals
// (src/commandlineflags.h, BM_DECLARE_*); benchmark.h does not declare them.
namespace benchmark {
extern bool FLAGS_benchmark_list_tests;
extern std::string FLAGS_benchmark_out;
}  // namespace benchmark

namespace pmubench {
namespace {

// Receives --benchmark_list_tests' names, which go to its output stream.
class ListingReporter : public benchmark::BenchmarkReporter {
 public:
  ListingReporter() {
    SetOutputStream(&sink_);
    SetErrorStream(&errors_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
  // One name per line, as --benchmark_list_tests prints them.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    std::istringstream lines(sink_.str());
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) names.push_back(line);
    }
    return names;
  }

 private:
  std::ostringstream sink_;
  std::ostringstream errors_;  // "Failed to match any benchmarks ..."
};

double SteadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const long total = std::lround(seconds);
  if (total < 60) return absl::StrCat(total, "s");
  if (total < 3600) return absl::StrFormat("%dm%02ds", total / 60, total % 60);
  return absl::StrFormat("%dh%02dm", total / 3600, (total % 3600) / 60);
}

std::optional<double> EstimateRemaining(int done, int total, double elapsed) {
  if (done <= 0 || total <= 0 || done > total) return std::nullopt;
  return elapsed / done * (total - done);
}

std::string ProgressText(int done, int total, double elapsed) {
  std::string text =
      total > 0 ? absl::StrCat("pmubench: case ", std::min(done + 1, total),
                               " of ", total, " running")
                : absl::StrCat("pmubench: ", done, " cases done");
  absl::StrAppend(&text, ", ", FormatDuration(elapsed), " elapsed");
  if (std::optional<double> left = EstimateRemaining(done, total, elapsed)) {
    absl::StrAppend(&text, ", about ", FormatDuration(*left), " left");
  }
  return text;
}

bool StderrIsInteractive() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 &&
         (term == nullptr || std::string_view(term) != "dumb");
}

int CountSelectedBenchmarks() {
  return static_cast<int>(ListSelectedBenchmarks().size());
}

std::vector<std::string> ListSelectedBenchmarks() {
  const bool list_tests = benchmark::FLAGS_benchmark_list_tests;
  const std::string out = benchmark::FLAGS_benchmark_out;
  // Listing only: no file opened, nothing run.
  benchmark::FLAGS_benchmark_list_tests = true;
  benchmark::FLAGS_benchmark_out.clear();
  ListingReporter listing;
  benchmark::RunSpecifiedBenchmarks(&listing);
  benchmark::FLAGS_benchmark_list_tests = list_tests;
  benchmark::FLAGS_benchmark_out = out;
  return listing.Names();
}

ProgressLine::ProgressLine(std::ostream* out, bool enabled,
                           std::function<double()> clock)
    : out_(out),
      enabled_(enabled),
      clock_(clock ? std::move(clock) : SteadySeconds) {}

void ProgressLine::Start(int total) {
  total_ = total;
  done_ = 0;
  start_ = clock_();
  Show();
}

void ProgressLine::CaseDone() {
  ++done_;
  if (total_ == 0 || done_ < total_) Show();
}

void ProgressLine::Clear() {
  if (!enabled_ || !shown_) return;
  // "\r" to column 0, then CSI K: erase to the end of the line.
  *out_ << "\r\033[K" << std::flush;
  shown_ = false;
}

void ProgressLine::Show() {
  if (!enabled_) return;
  *out_ << "\r\033[K" << ProgressText(done_, total_, clock_() - start_)
        << std::flush;
  shown_ = true;
}

}  // namespace pmubench
