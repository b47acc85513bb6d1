#include "framework/runner/console_reporter.h"

#include <cmath>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/runner/describe.h"
#include "framework/runner/event_set.h"

namespace pmubench {
namespace {

constexpr char kDebugWarning[] = "***WARNING*** Library was built as DEBUG";

}  // namespace

std::string FormatCount(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude < 1000) return absl::StrFormat("%.4g", value);
  static constexpr const char* kSuffix[] = {"k", "M", "G", "T", "P"};
  double scaled = value / 1000;
  int unit = 0;
  while (std::fabs(scaled) >= 1000 && unit < 4) {
    scaled /= 1000;
    ++unit;
  }
  return absl::StrCat(absl::StrFormat("%.4g", scaled), kSuffix[unit]);
}

std::string RewriteBasicContext(const std::string& basic_context) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(basic_context, '\n')) {
    if (absl::StartsWith(line, "pmubench_")) continue;  // our header says it
    if (absl::StartsWith(line, kDebugWarning)) {
      absl::StrAppend(
          &out,
          "***NOTE*** Google Benchmark's library was built as DEBUG (Debian's "
          "libbenchmark); it warns that timings may be affected.\n"
          "           pmubench's timed loop is inline code in this binary; "
          "the library runs only at batch boundaries (timer\n"
          "           start/stop), so its debug build adds a fixed cost per "
          "batch, not per iteration.\n");
    } else if (!line.empty()) {
      absl::StrAppend(&out, line, "\n");
    }
  }
  return out;
}

bool PmuConsoleReporter::ReportContext(const Context& context) {
  // What benchmark::ConsoleReporter::ReportContext resets.
  name_field_width_ = context.name_field_width;
  printed_header_ = false;
  prev_counters_.clear();

  std::ostringstream basic;
  PrintBasicContext(&basic, context);
  std::ostream& err = GetErrorStream();
  err << RewriteBasicContext(basic.str());
  err << internal::ConsoleHeader(session_.facts);
  return true;
}

void PmuConsoleReporter::PrintRunData(const Run& run) {
  // Google Benchmark prints the time columns, user counters and label; ours
  // go after them on the same line, in event-set order.
  Run rest = run;
  std::vector<std::pair<std::string, benchmark::Counter>> ours;
  for (const std::string& name : session_.counter_names) {
    auto it = rest.counters.find(name);
    if (it == rest.counters.end()) continue;
    ours.emplace_back(name, it->second);
    rest.counters.erase(it);
  }
  std::ostream& out = GetOutputStream();
  std::ostringstream line;
  SetOutputStream(&line);
  benchmark::ConsoleReporter::PrintRunData(rest);
  SetOutputStream(&out);
  std::string text = line.str();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  out << text;
  if (run.error_occurred || ours.empty()) {
    out << "\n";
    return;
  }
  const bool percent = run.run_type == Run::RT_Aggregate &&
                       run.aggregate_unit == benchmark::kPercentage;
  for (const auto& [name, counter] : ours) {
    if (name == internal::kRunningFractionName) {
      // Shown only when multiplexed; a spread of fractions (stddev, cv) is
      // not a fraction.
      const bool is_fraction =
          run.run_type == Run::RT_Iteration || run.aggregate_name == "mean" ||
          run.aggregate_name == "median" || run.aggregate_name == "min";
      if (is_fraction && counter.value < 1.0) {
        out << " on-PMU=" << absl::StrFormat("%.1f%%", 100 * counter.value);
      }
    } else if (percent) {
      out << " " << name << "="
          << absl::StrFormat("%.2f%%", 100 * counter.value);
    } else {
      out << " " << name << "=" << FormatCount(counter.value);
    }
  }
  out << "\n";
}

}  // namespace pmubench
