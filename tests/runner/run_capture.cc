#include "tests/runner/run_capture.h"

#include <limits>

namespace pmubench::testing {
namespace {

class CapturingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    runs_.insert(runs_.end(), runs.begin(), runs.end());
  }
  std::vector<Run> TakeRuns() { return std::move(runs_); }

 private:
  std::vector<Run> runs_;
};

}  // namespace

std::vector<BenchRun> RunMatching(const std::string& filter_regex) {
  CapturingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, filter_regex);
  return reporter.TakeRuns();
}

const BenchRun* FindRun(const std::vector<BenchRun>& runs,
                        const std::string& name) {
  for (const BenchRun& run : runs) {
    if (run.benchmark_name() == name) return &run;
  }
  return nullptr;
}

double CounterOf(const BenchRun& run, const std::string& name) {
  auto it = run.counters.find(name);
  if (it == run.counters.end()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return it->second.value;
}

}  // namespace pmubench::testing
