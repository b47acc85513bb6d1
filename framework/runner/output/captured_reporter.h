// A Google Benchmark reporter that hands what another reporter writes to a
// sink, chunk by chunk, instead of a stream Google Benchmark chose: for the
// --benchmark_out file (held in memory until it is committed whole) and for
// JSON on stdout. JSON is made strict on the way (strict_json.h); the
// coefficient of variation of a counter whose mean is 0 (0/0, a counter that
// never fired) is left out of the "cv" row rather than written as null.
//
// Google Benchmark points a file reporter's streams at the file it opened
// itself (RunSpecifiedBenchmarks in benchmark.cc); this reporter ignores
// them, so that file can be /dev/null.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_CAPTURED_REPORTER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_CAPTURED_REPORTER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <sstream>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"

namespace pmubench {

class CapturedReporter : public benchmark::BenchmarkReporter {
 public:
  using Sink = std::function<void(std::string_view)>;

  // `inner` writes into a private buffer; each call's text goes to `sink`,
  // strict JSON when `strict_json`.
  CapturedReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                   bool strict_json, Sink sink);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& report) override;
  void Finalize() override;

  // How many runs (repetitions and aggregates) were reported.
  size_t runs() const { return runs_; }

 private:
  void Drain();

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::ostringstream buffer_;
  bool strict_json_;
  Sink sink_;
  size_t runs_ = 0;
};

// The reporter Google Benchmark 1.7.1 would create for `format` ("console",
// "json" or "csv"; anything else is json), without colour.
std::unique_ptr<benchmark::BenchmarkReporter> ReporterForFormat(
    std::string_view format);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_CAPTURED_REPORTER_H_
