#include "framework/runner/output/console_reporter.h"

#include <algorithm>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "framework/runner/alloc/alloc_fields.h"
#include "framework/runner/output/describe.h"
#include "framework/runner/plan/event_set.h"

namespace pmubench {
namespace {

constexpr char kDebugWarning[] = "***WARNING*** Library was built as DEBUG";
// ANSI SGR reset, as Google Benchmark's ColorPrintf writes it.
constexpr char kColorReset[] = "\033[m";

bool DropSuffix(std::string* text, absl::string_view suffix) {
  if (!absl::EndsWith(*text, suffix)) return false;
  text->resize(text->size() - suffix.size());
  return true;
}

// Google Benchmark prints a NaN counter (the cv of a user counter that is
// always 0) as "-nan" or "nan", with "%" on a cv row. Each such token becomes
// "n/a", right-aligned in the token's width where spaces precede it (a
// tabular column), else as is ("name=n/a").
std::string WithoutNan(std::string text) {
  for (size_t at = text.find("nan"); at != std::string::npos;
       at = text.find("nan", at + 1)) {
    size_t begin = at;
    if (begin > 0 && text[begin - 1] == '-') --begin;
    size_t end = at + 3;
    if (end < text.size() && text[end] == '%') ++end;
    const bool starts =
        begin > 0 && (text[begin - 1] == ' ' || text[begin - 1] == '=');
    const bool ends = end == text.size() || text[end] == ' ' ||
                      text[end] == '\n' || text[end] == '\033';
    if (!starts || !ends) continue;
    const size_t width = end - begin;
    const std::string replacement =
        text[begin - 1] == ' '
            ? std::string(width - std::min<size_t>(width, 3), ' ') + "n/a"
            : "n/a";
    text.replace(begin, width, replacement);
    at = begin;
  }
  return text;
}

// Google Benchmark 1.7.1's tabular counter columns: at least 10 wide.
size_t ColumnWidth(const std::string& name) {
  return std::max<size_t>(10, name.size());
}

// The on-PMU fraction of a run: shown only when multiplexed, and only on
// rows where it is a fraction (a stddev or cv of fractions is not).
std::string OnPmu(const benchmark::BenchmarkReporter::Run& run) {
  using Run = benchmark::BenchmarkReporter::Run;
  auto it = run.counters.find(internal::kRunningFractionName);
  if (it == run.counters.end()) return "";
  const bool is_fraction =
      run.run_type == Run::RT_Iteration || run.aggregate_name == "mean" ||
      run.aggregate_name == "median" || run.aggregate_name == "min";
  if (!is_fraction || !(it->second.value < 1.0)) return "";
  return absl::StrCat(" on-PMU=", FormatPercent(it->second.value, 1));
}

}  // namespace

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

PmuConsoleReporter::PmuConsoleReporter(OutputOptions options,
                                       SessionInfo session, bool show_progress)
    : benchmark::ConsoleReporter(options),
      session_(std::move(session)),
      progress_(&GetErrorStream(), show_progress) {}

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
  err.flush();
  progress_.set_out(&err);
  if (progress_.enabled()) progress_.Start(CountSelectedBenchmarks());
  return true;
}

void PmuConsoleReporter::ReportRuns(const std::vector<Run>& reports) {
  progress_.Clear();
  // Google Benchmark prints a new header when the counter names change;
  // ours also when the same names come in another set's order.
  if ((output_options_ & OO_Tabular) && !reports.empty() &&
      OrderFor(reports.front()) != header_order_) {
    printed_header_ = false;
  }
  benchmark::ConsoleReporter::ReportRuns(reports);
  GetOutputStream().flush();
  progress_.CaseDone();
}

void PmuConsoleReporter::Finalize() {
  progress_.Clear();
  benchmark::ConsoleReporter::Finalize();
}

const std::vector<std::string>& PmuConsoleReporter::OrderFor(const Run& run) {
  const std::string& name = run.run_name.function_name;
  auto cached = order_cache_.find(name);
  if (cached != order_cache_.end()) return cached->second;
  std::vector<std::string> order;
  if (auto fields = session_.fields_by_case.find(name);
      fields != session_.fields_by_case.end()) {
    order = fields->second;
  }
  for (const std::string& field : session_.counter_names) {
    if (std::find(order.begin(), order.end(), field) == order.end()) {
      order.push_back(field);
    }
  }
  // The heap allocation fields follow the counters (alloc_fields.h).
  order.insert(order.end(), internal::kAllocFields.begin(),
               internal::kAllocFields.end());
  return order_cache_.emplace(name, std::move(order)).first->second;
}

std::vector<std::pair<std::string, benchmark::Counter>>
PmuConsoleReporter::SplitCounters(const Run& run, Run* rest) {
  *rest = run;
  std::vector<std::pair<std::string, benchmark::Counter>> ours;
  for (const std::string& name : OrderFor(run)) {
    auto it = rest->counters.find(name);
    if (it == rest->counters.end()) continue;
    if (name != internal::kRunningFractionName) {
      ours.emplace_back(name, it->second);
    }
    rest->counters.erase(it);
  }
  return ours;
}

void PmuConsoleReporter::PrintHeader(const Run& run) {
  if (!(output_options_ & OO_Tabular)) {
    benchmark::ConsoleReporter::PrintHeader(run);
    return;
  }
  // As Google Benchmark 1.7.1 lays out its tabular header, with our
  // columns after its user counters.
  Run rest;
  const auto ours = SplitCounters(run, &rest);
  header_order_ = OrderFor(run);
  std::string str = absl::StrFormat("%-*s %13s %15s %12s",
                                    static_cast<int>(name_field_width_),
                                    "Benchmark", "Time", "CPU", "Iterations");
  for (const auto& [name, counter] : rest.counters) {
    absl::StrAppendFormat(&str, " %*s", ColumnWidth(name), name);
  }
  for (const auto& [name, counter] : ours) {
    absl::StrAppendFormat(&str, " %*s", ColumnWidth(name), name);
  }
  const std::string line(str.size(), '-');
  GetOutputStream() << line << "\n" << str << "\n" << line << "\n";
}

void PmuConsoleReporter::PrintRunData(const Run& run) {
  // Google Benchmark prints the time columns and user counters; ours go
  // after them on the same line, in event-set order, then the label.
  Run rest;
  const auto ours = SplitCounters(run, &rest);
  const std::string label = rest.report_label;
  rest.report_label.clear();
  std::ostream& out = GetOutputStream();
  std::ostringstream line;
  SetOutputStream(&line);
  benchmark::ConsoleReporter::PrintRunData(rest);
  SetOutputStream(&out);
  std::string text = run.error_occurred ? line.str() : WithoutNan(line.str());
  // With colour, Google Benchmark ends each printf with the reset "\033[m",
  // the last one after the newline.
  const bool reset = DropSuffix(&text, kColorReset);
  DropSuffix(&text, "\n");
  const std::string end = reset ? absl::StrCat(kColorReset, "\n") : "\n";
  out << text;
  if (run.error_occurred) {
    out << end;
    return;
  }
  const bool tabular = output_options_ & OO_Tabular;
  const bool percent = run.run_type == Run::RT_Aggregate &&
                       run.aggregate_unit == benchmark::kPercentage;
  for (const auto& [name, counter] : ours) {
    const std::string value = percent
                                  ? FormatPercent(counter.value, 2)
                                  : FormatCounter(counter.value, UnitOf(name));
    if (tabular) {
      out << absl::StrFormat(" %*s", ColumnWidth(name), value);
    } else {
      out << " " << name << "=" << value;
    }
  }
  out << OnPmu(run);
  if (!label.empty()) out << " " << label;
  out << end;
}

}  // namespace pmubench
