#include "framework/runner/profile/profile_json.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/runner/plan/case_seconds.h"
#include "framework/runner/profile/worker_profiles.h"

namespace pmubench {
namespace {

// Entries per list of a per-iteration profile: far more than a benchmark's
// steps touch; the totals still count what is left out.
constexpr size_t kMaxPerIterationEntries = 2000;

// A JSON string literal (RFC 8259 section 7).
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Per iteration: the segments' delta over the row's divisor, with digits
// enough for a reader to add them up (each "segment_delta" is exact).
std::string PerIteration(int64_t delta, int64_t iterations) {
  return absl::StrFormat(
      "%.9g", static_cast<double>(delta) / static_cast<double>(iterations));
}

// The function list: the line deltas summed per function.
std::string PerIterationFunctions(const internal::SegmentProfile& p) {
  std::map<std::string, int64_t> per_function;
  for (const internal::SegmentDelta& d : p.costs) {
    per_function[d.function] += d.delta;
  }
  std::vector<std::pair<std::string, int64_t>> sorted;
  for (const auto& [function, delta] : per_function) {
    if (delta != 0) sorted.emplace_back(function, delta);
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) {
                     return std::llabs(a.second) > std::llabs(b.second);
                   });
  std::string list;
  for (size_t i = 0; i < sorted.size() && i < kMaxPerIterationEntries; ++i) {
    absl::StrAppend(&list, list.empty() ? "" : ", ",
                    "{\"symbol\": ", Quoted(sorted[i].first), ", \"count\": ",
                    PerIteration(sorted[i].second, p.iterations),
                    ", \"segment_delta\": ", sorted[i].second, "}");
  }
  return list;
}

std::string PerIterationLines(const internal::SegmentProfile& p) {
  std::string list;
  for (size_t i = 0; i < p.costs.size() && i < kMaxPerIterationEntries; ++i) {
    const internal::SegmentDelta& d = p.costs[i];
    absl::StrAppend(&list, list.empty() ? "" : ", ",
                    "{\"symbol\": ", Quoted(d.function),
                    ", \"file\": ", Quoted(d.file), ", \"line\": ", d.line,
                    ", \"count\": ", PerIteration(d.delta, p.iterations),
                    ", \"segment_delta\": ", d.delta, "}");
  }
  return list;
}

// The pmubench_profile_*per_iteration fields of a simulated profile.
std::string PlaceFields(const CodePlace& p) {
  return absl::StrCat("\"symbol\": ", Quoted(p.function),
                      ", \"file\": ", Quoted(p.file), ", \"line\": ", p.line);
}

// "pmubench_profile_alloc_sites_per_iteration": each call site of the profiled
// loop's allocations, per iteration (alloc_site_names.h).
std::string AllocSiteFields(const std::vector<NamedAllocSite>& sites) {
  std::string list;
  for (const NamedAllocSite& s : sites) {
    absl::StrAppend(&list, list.empty() ? "" : ", ", "{",
                    PlaceFields(s.caller));
    if (!s.above.function.empty()) {
      absl::StrAppend(&list, ", \"above\": {", PlaceFields(s.above), "}");
    }
    absl::StrAppend(&list, ", \"allocs\": ", absl::StrFormat("%.9g", s.allocs),
                    ", \"bytes\": ", absl::StrFormat("%.9g", s.bytes), "}");
  }
  return absl::StrCat(
      ",\n      \"pmubench_profile_alloc_sites_per_iteration\": [", list, "]");
}

std::string PerIterationFields(const internal::SegmentProfile& p) {
  const char* kSep = ",\n      ";
  return absl::StrCat(
      kSep, "\"pmubench_profile_per_iteration\": [", PerIterationFunctions(p),
      "]", kSep, "\"pmubench_profile_lines_per_iteration\": [",
      PerIterationLines(p), "]", kSep,
      "\"pmubench_profile_per_iteration_total\": ",
      PerIteration(p.total, p.iterations), kSep,
      "\"pmubench_profile_per_iteration_segment_total\": ", p.total, kSep,
      "\"pmubench_profile_per_iteration_iterations\": ", p.iterations);
}

}  // namespace

std::string ProfileJsonFields(const ProfileStore::Entry& entry) {
  const perf::Profile& p = entry.profile;
  std::string list;
  for (const perf::FunctionSamples& f : p.top) {
    absl::StrAppend(&list, list.empty() ? "" : ", ",
                    "{\"symbol\": ", Quoted(f.symbol),
                    ", \"samples\": ", f.samples,
                    ", \"share\": ", absl::StrFormat("%.6f", f.share), "}");
  }
  std::string lines;
  for (const perf::LineSamples& l : p.lines) {
    absl::StrAppend(&lines, lines.empty() ? "" : ", ",
                    "{\"symbol\": ", Quoted(l.symbol),
                    ", \"file\": ", Quoted(l.file), ", \"line\": ", l.line,
                    ", \"samples\": ", l.samples,
                    ", \"share\": ", absl::StrFormat("%.6f", l.share), "}");
  }
  const char* kSep = ",\n      ";
  std::string timing;
  if (entry.slowdown.has_value() && entry.slowdown->ratio > 0) {
    const ProfileSlowdown& s = *entry.slowdown;
    const double ns = 1e9 * s.times.profiled_seconds_per_iteration;
    timing = absl::StrCat(
        kSep,
        "\"pmubench_profile_real_time_ns\": ", absl::StrFormat("%.3f", ns),
        kSep,
        "\"pmubench_profile_slowdown\": ", absl::StrFormat("%.3f", s.ratio));
    if (s.warn) {
      absl::StrAppend(
          &timing, kSep,
          "\"pmubench_profile_slowdown_warning\": ", Quoted(SlowdownWarning(s)),
          kSep, "\"pmubench_profile_suggested_period\": ", s.suggested_period);
    }
  }
  const std::string sites =
      entry.alloc_sites.has_value() ? AllocSiteFields(*entry.alloc_sites) : "";
  return absl::StrCat(
      kSep, "\"pmubench_profile\": [", list, "]", kSep,
      "\"pmubench_profile_lines\": [", lines, "]", kSep,
      "\"pmubench_profile_event\": ", Quoted(entry.event), kSep,
      "\"pmubench_profile_samples\": ", p.samples, kSep,
      "\"pmubench_profile_lost_samples\": ", p.tally.lost_samples, kSep,
      "\"pmubench_profile_throttles\": ", p.tally.throttles, timing,
      entry.per_iteration.has_value() ? PerIterationFields(*entry.per_iteration)
                                      : std::string(),
      sites);
}

ProfileJsonReporter::ProfileJsonReporter(
    std::unique_ptr<benchmark::BenchmarkReporter> inner,
    const ProfileStore* profiles)
    : inner_(std::move(inner)), profiles_(profiles) {
  inner_->SetOutputStream(&buffer_);
  inner_->SetErrorStream(&buffer_);
}

bool ProfileJsonReporter::ReportContext(const Context& context) {
  const bool ok = inner_->ReportContext(context);
  Flush();
  return ok;
}

void ProfileJsonReporter::ReportRuns(const std::vector<Run>& report) {
  for (const Run& run : report) {
    inner_->ReportRuns({run});
    std::string text = std::move(buffer_).str();
    buffer_.str("");
    const std::string fields = FieldsOf(run);
    const size_t close = text.rfind('}');
    const size_t end_of_fields = text.find_last_not_of(" \n", close - 1);
    if (!fields.empty() && close != std::string::npos &&
        end_of_fields != std::string::npos) {
      text.insert(end_of_fields + 1, fields);
    }
    GetOutputStream() << text;
  }
}

// The profile fields of `run`: its profile in the store, or the one a
// worker rendered (worker_profiles.h); "" for none.
std::string ProfileJsonReporter::FieldsOf(const Run& run) const {
  if (run.run_type != Run::RT_Iteration || run.error_occurred) return "";
  const std::string name = run.run_name.str();
  std::string fields;
  if (const ProfileStore::Entry* entry = profiles_->Find(name)) {
    fields = ProfileJsonFields(*entry);
  } else if (const RenderedProfile* worker = FindWorkerProfile(name)) {
    fields = worker->json;
  }
  if (std::optional<double> seconds = internal::FindCaseSeconds(name)) {
    absl::StrAppend(&fields, ",\n      \"", internal::kCaseSecondsField,
                    "\": ", absl::StrFormat("%.6f", *seconds));
  }
  return fields;
}

void ProfileJsonReporter::Finalize() {
  inner_->Finalize();
  Flush();
}

void ProfileJsonReporter::Flush() {
  GetOutputStream() << std::move(buffer_).str();
  buffer_.str("");
}

}  // namespace pmubench
