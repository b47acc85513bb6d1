#include "framework/runner/output/captured_reporter.h"

#include <cmath>
#include <string>
#include <utility>

#include "framework/runner/output/strict_json.h"

namespace pmubench {

CapturedReporter::CapturedReporter(
    std::unique_ptr<benchmark::BenchmarkReporter> inner, bool strict_json,
    Sink sink)
    : inner_(std::move(inner)),
      strict_json_(strict_json),
      sink_(std::move(sink)) {
  inner_->SetOutputStream(&buffer_);
  inner_->SetErrorStream(&buffer_);
}

bool CapturedReporter::ReportContext(const Context& context) {
  const bool ok = inner_->ReportContext(context);
  Drain();
  return ok;
}

void CapturedReporter::ReportRuns(const std::vector<Run>& report) {
  runs_ += report.size();
  if (!strict_json_) {
    inner_->ReportRuns(report);
    Drain();
    return;
  }
  std::vector<Run> strict = report;
  for (Run& run : strict) {
    if (run.aggregate_name != "cv") continue;
    std::erase_if(run.counters, [](const auto& named) {
      return std::isnan(named.second.value);
    });
  }
  inner_->ReportRuns(strict);
  Drain();
}

void CapturedReporter::Finalize() {
  inner_->Finalize();
  Drain();
}

void CapturedReporter::Drain() {
  // Each call of a Google Benchmark reporter writes whole JSON tokens, so a
  // chunk never starts inside a string.
  const std::string text = std::move(buffer_).str();
  buffer_.str("");
  if (text.empty()) return;
  sink_(strict_json_ ? StrictJson(text) : text);
}

std::unique_ptr<benchmark::BenchmarkReporter> ReporterForFormat(
    std::string_view format) {
  if (format == "console") {
    return std::make_unique<benchmark::ConsoleReporter>(
        benchmark::ConsoleReporter::OO_None);
  }
  if (format == "csv") {
    // Deprecated in 1.7.1 but still what --benchmark_out_format=csv means.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  }
  return std::make_unique<benchmark::JSONReporter>();
}

}  // namespace pmubench
