#include "framework/runner/profile/profile_json.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pmubench {
namespace {

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

}  // namespace

std::string ProfileJsonFields(const ProfileStore::Entry& entry) {
  const perf::Profile& p = entry.profile;
  std::string list;
  for (const perf::FunctionSamples& f : p.top) {
    absl::StrAppend(&list, list.empty() ? "" : ", ", "{\"symbol\": ",
                    Quoted(f.symbol), ", \"samples\": ", f.samples,
                    ", \"share\": ", absl::StrFormat("%.6f", f.share), "}");
  }
  std::string lines;
  for (const perf::LineSamples& l : p.lines) {
    absl::StrAppend(&lines, lines.empty() ? "" : ", ", "{\"symbol\": ",
                    Quoted(l.symbol), ", \"file\": ", Quoted(l.file),
                    ", \"line\": ", l.line, ", \"samples\": ", l.samples,
                    ", \"share\": ", absl::StrFormat("%.6f", l.share), "}");
  }
  const char* kSep = ",\n      ";
  std::string timing;
  if (entry.slowdown.has_value() && entry.slowdown->ratio > 0) {
    const ProfileSlowdown& s = *entry.slowdown;
    const double ns = 1e9 * s.times.profiled_seconds_per_iteration;
    timing = absl::StrCat(
        kSep, "\"pmubench_profile_real_time_ns\": ",
        absl::StrFormat("%.3f", ns), kSep, "\"pmubench_profile_slowdown\": ",
        absl::StrFormat("%.3f", s.ratio));
    if (s.warn) {
      absl::StrAppend(&timing, kSep, "\"pmubench_profile_slowdown_warning\": ",
                      Quoted(SlowdownWarning(s)), kSep,
                      "\"pmubench_profile_suggested_period\": ",
                      s.suggested_period);
    }
  }
  return absl::StrCat(kSep, "\"pmubench_profile\": [", list, "]", kSep,
                      "\"pmubench_profile_lines\": [", lines, "]", kSep,
                      "\"pmubench_profile_event\": ", Quoted(entry.event),
                      kSep, "\"pmubench_profile_samples\": ", p.samples, kSep,
                      "\"pmubench_profile_lost_samples\": ",
                      p.tally.lost_samples, kSep,
                      "\"pmubench_profile_throttles\": ", p.tally.throttles,
                      timing);
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
    const ProfileStore::Entry* entry =
        run.run_type == Run::RT_Iteration && !run.error_occurred
            ? profiles_->Find(run.run_name.str())
            : nullptr;
    const size_t close = text.rfind('}');
    const size_t end_of_fields = text.find_last_not_of(" \n", close - 1);
    if (entry != nullptr && close != std::string::npos &&
        end_of_fields != std::string::npos) {
      text.insert(end_of_fields + 1, ProfileJsonFields(*entry));
    }
    GetOutputStream() << text;
  }
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
