#include "framework/runner/run/run_record.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <system_error>

namespace pmubench::internal {
namespace {

// Tokens: a number is its text and a space; a string is its length, a
// colon and its bytes (any bytes, newlines included).
class Writer {
 public:
  void Int(int64_t v) { Number(v); }
  void Double(double v) { Number(v); }
  void String(std::string_view s) {
    Number(static_cast<int64_t>(s.size()), ':');
    out_ += s;
  }
  std::string& out() { return out_; }

 private:
  template <typename T>
  void Number(T v, char end_mark = ' ') {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
    out_.append(buffer, end);
    out_ += end_mark;
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}
  bool ok() const { return ok_; }
  size_t position() const { return pos_; }
  bool AtEnd() const { return pos_ >= text_.size(); }

  int64_t Int() { return Number<int64_t>(' '); }
  double Double() { return Number<double>(' '); }
  std::string String() {
    const auto size = static_cast<size_t>(Number<int64_t>(':'));
    if (!ok_ || text_.size() - pos_ < size) return Fail<std::string>();
    std::string s(text_.substr(pos_, size));
    pos_ += size;
    return s;
  }
  // The one-character mark `c`, or a failure.
  void Mark(char c) {
    if (AtEnd() || text_[pos_] != c) ok_ = false;
    ++pos_;
  }

 private:
  template <typename T>
  T Fail() {
    ok_ = false;
    return T{};
  }
  template <typename T>
  T Number(char end_mark) {
    if (!ok_) return T{};
    const char* first = text_.data() + pos_;
    const char* last = text_.data() + text_.size();
    T v{};
    auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || end == last || *end != end_mark) return Fail<T>();
    pos_ += static_cast<size_t>(end - first) + 1;
    return v;
  }
  std::string_view text_;
  size_t pos_ = 0;
  bool ok_ = true;
};

void WriteName(Writer& w, const benchmark::BenchmarkName& n) {
  for (const std::string* s :
       {&n.function_name, &n.args, &n.min_time, &n.min_warmup_time,
        &n.iterations, &n.repetitions, &n.time_type, &n.threads}) {
    w.String(*s);
  }
}

void ReadName(Reader& r, benchmark::BenchmarkName& n) {
  for (std::string* s :
       {&n.function_name, &n.args, &n.min_time, &n.min_warmup_time,
        &n.iterations, &n.repetitions, &n.time_type, &n.threads}) {
    *s = r.String();
  }
}

void WriteCounters(Writer& w, const benchmark::UserCounters& counters) {
  w.Int(static_cast<int64_t>(counters.size()));
  for (const auto& [name, counter] : counters) {
    w.String(name);
    w.Double(counter.value);
    w.Int(counter.flags);
    w.Int(counter.oneK);
  }
}

void ReadCounters(Reader& r, benchmark::UserCounters& counters) {
  const int64_t size = r.Int();
  for (int64_t i = 0; r.ok() && i < size; ++i) {
    std::string name = r.String();
    benchmark::Counter counter;
    counter.value = r.Double();
    counter.flags = static_cast<benchmark::Counter::Flags>(r.Int());
    counter.oneK = static_cast<benchmark::Counter::OneK>(r.Int());
    counters[name] = counter;
  }
}

void WriteRun(Writer& w, const ReportedRun& run) {
  WriteName(w, run.run_name);
  w.Int(run.family_index);
  w.Int(run.per_family_instance_index);
  w.Int(run.run_type);
  w.String(run.aggregate_name);
  w.Int(run.aggregate_unit);
  w.String(run.report_label);
  w.Int(run.error_occurred ? 1 : 0);
  w.String(run.error_message);
  w.Int(run.iterations);
  w.Int(run.threads);
  w.Int(run.repetition_index);
  w.Int(run.repetitions);
  w.Int(run.time_unit);
  w.Double(run.real_accumulated_time);
  w.Double(run.cpu_accumulated_time);
  w.Double(run.max_heapbytes_used);
  w.Int(run.complexity);
  w.Int(run.complexity_n);
  w.Int(run.report_big_o ? 1 : 0);
  w.Int(run.report_rms ? 1 : 0);
  WriteCounters(w, run.counters);
  w.Double(run.allocs_per_iter);
}

ReportedRun ReadRun(Reader& r) {
  ReportedRun run;
  ReadName(r, run.run_name);
  run.family_index = r.Int();
  run.per_family_instance_index = r.Int();
  run.run_type = static_cast<ReportedRun::RunType>(r.Int());
  run.aggregate_name = r.String();
  run.aggregate_unit = static_cast<benchmark::StatisticUnit>(r.Int());
  run.report_label = r.String();
  run.error_occurred = r.Int() != 0;
  run.error_message = r.String();
  run.iterations = r.Int();
  run.threads = r.Int();
  run.repetition_index = r.Int();
  run.repetitions = r.Int();
  run.time_unit = static_cast<benchmark::TimeUnit>(r.Int());
  run.real_accumulated_time = r.Double();
  run.cpu_accumulated_time = r.Double();
  run.max_heapbytes_used = r.Double();
  run.complexity = static_cast<benchmark::BigO>(r.Int());
  run.complexity_n = r.Int();
  run.report_big_o = r.Int() != 0;
  run.report_rms = r.Int() != 0;
  ReadCounters(r, run.counters);
  run.allocs_per_iter = r.Double();
  run.statistics = nullptr;
  return run;
}

}  // namespace

std::string EncodeRuns(const std::vector<ReportedRun>& runs) {
  Writer w;
  w.out() += 'R';
  w.Int(static_cast<int64_t>(runs.size()));
  for (const ReportedRun& run : runs) WriteRun(w, run);
  w.out() += "E\n";
  return std::move(w.out());
}

std::vector<std::vector<ReportedRun>> DecodeRuns(std::string_view text) {
  std::vector<std::vector<ReportedRun>> records;
  Reader r(text);
  while (r.ok() && !r.AtEnd()) {
    r.Mark('R');
    const int64_t size = r.Int();
    std::vector<ReportedRun> runs;
    for (int64_t i = 0; r.ok() && i < size; ++i) runs.push_back(ReadRun(r));
    r.Mark('E');
    r.Mark('\n');
    if (r.ok()) records.push_back(std::move(runs));
  }
  return records;
}

std::string EncodeProfile(const ProfileRecord& profile) {
  Writer w;
  w.out() += 'P';
  w.String(profile.run_name);
  w.String(profile.console);
  w.String(profile.json);
  w.out() += "E\n";
  return std::move(w.out());
}

std::vector<ProfileRecord> DecodeProfiles(std::string_view text) {
  std::vector<ProfileRecord> records;
  Reader r(text);
  while (r.ok() && !r.AtEnd()) {
    r.Mark('P');
    ProfileRecord profile;
    profile.run_name = r.String();
    profile.console = r.String();
    profile.json = r.String();
    r.Mark('E');
    r.Mark('\n');
    if (r.ok()) records.push_back(std::move(profile));
  }
  return records;
}

}  // namespace pmubench::internal
