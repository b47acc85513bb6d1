#include "framework/runner/simulate/callgrind.h"

#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/runner/simulate/callgrind_request.h"

namespace pmubench::internal {
namespace {

using perf::AsAbsl;

// "32768 B, 64 B, 8-way associative" -> "32768,8,64"; "" when not that.
std::string CacheGeometry(absl::string_view desc) {
  std::vector<absl::string_view> parts = absl::StrSplit(desc, ", ");
  uint64_t size = 0, line = 0, ways = 0;
  if (parts.size() != 3 ||
      !absl::SimpleAtoi(absl::StripSuffix(parts[0], " B"), &size) ||
      !absl::SimpleAtoi(absl::StripSuffix(parts[1], " B"), &line) ||
      !absl::SimpleAtoi(absl::StripSuffix(parts[2], "-way associative"),
                        &ways)) {
    return "";
  }
  return absl::StrCat(size, ",", ways, ",", line);
}

absl::Status ParseTotals(absl::string_view values, CallgrindDump& dump,
                         absl::string_view path) {
  dump.totals.clear();
  for (absl::string_view v :
       absl::StrSplit(values, ' ', absl::SkipWhitespace())) {
    uint64_t n = 0;
    if (!absl::SimpleAtoi(v, &n)) {
      return absl::DataLossError(absl::StrCat(
          "callgrind dump ", path, ": '", v, "' in its summary is not a count"));
    }
    dump.totals.push_back(n);
  }
  return absl::OkStatus();
}

// The body of a dump: "fl=(3) name" / "fn=(7)" set the current file and
// function (names compressed to "(id)" after their first use in the file),
// "calls=" announces that the next cost line is a call's inclusive cost, and
// a cost line is "POSITION... COST..." with positions absolute, "+n"/"-n"
// relative, or "*" (the Valgrind manual, "Callgrind Format Specification").
class BodyReader {
 public:
  explicit BodyReader(std::vector<CallgrindDump::SelfCost>& out) : out_(out) {}

  void set_positions(absl::string_view spec) {
    positions_ = absl::StrSplit(spec, ' ', absl::SkipWhitespace());
    values_.assign(positions_.size(), 0);
  }

  void Line(absl::string_view line) {
    if (line.empty()) return;
    if (absl::ConsumePrefix(&line, "fl=")) {
      function_file_ = file_ = Name(line, files_);
    } else if (absl::ConsumePrefix(&line, "fi=") ||
               absl::ConsumePrefix(&line, "fe=")) {
      // Inlined code: its own source file, still the function's cost.
      file_ = Name(line, files_);
    } else if (absl::ConsumePrefix(&line, "fn=")) {
      // A new function starts in its own file (callgrind writes "fl=" only
      // when that changes, and "fi=" again for inlined code).
      function_ = Name(line, functions_);
      file_ = function_file_;
    } else if (absl::ConsumePrefix(&line, "cfi=") ||
               absl::ConsumePrefix(&line, "cfl=")) {
      Name(line, files_);
    } else if (absl::ConsumePrefix(&line, "cfn=")) {
      Name(line, functions_);
    } else if (absl::StartsWith(line, "calls=") ||
               absl::StartsWith(line, "jump=") ||
               absl::StartsWith(line, "jcnd=")) {
      skip_next_ = true;
    } else if (absl::ascii_isdigit(line[0]) || line[0] == '+' ||
               line[0] == '-' || line[0] == '*') {
      Cost(line);
    }
  }

 private:
  // "(id) name" defines id, "(id)" uses it, "name" is uncompressed.
  static std::string Name(absl::string_view text,
                          std::map<std::string, std::string>& names) {
    if (!absl::StartsWith(text, "(")) return std::string(text);
    const size_t close = text.find(')');
    if (close == absl::string_view::npos) return std::string(text);
    const std::string id(text.substr(1, close - 1));
    absl::string_view name = absl::StripLeadingAsciiWhitespace(
        text.substr(close + 1));
    if (!name.empty()) names[id] = std::string(name);
    return names[id];
  }

  // Decimal, or hexadecimal after "0x" (instruction addresses); 0 if neither.
  static int64_t Number(absl::string_view text) {
    int64_t v = 0;
    const bool ok = absl::StartsWith(text, "0x") ? absl::SimpleHexAtoi(text, &v)
                                                 : absl::SimpleAtoi(text, &v);
    return ok ? v : 0;
  }

  void Cost(absl::string_view line) {
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, ' ', absl::SkipWhitespace());
    int line_number = 0;
    for (size_t i = 0; i < positions_.size() && i < fields.size(); ++i) {
      absl::string_view f = fields[i];
      int64_t v = 0;
      if (f == "*") {
        v = values_[i];
      } else if (absl::ConsumePrefix(&f, "+")) {
        v = values_[i] + Number(f);
      } else if (absl::ConsumePrefix(&f, "-")) {
        v = values_[i] - Number(f);
      } else {
        v = Number(f);
      }
      values_[i] = v;
      if (positions_[i] == "line") line_number = static_cast<int>(v);
    }
    if (skip_next_) {
      skip_next_ = false;
      return;
    }
    uint64_t cost = 0;
    if (fields.size() > positions_.size()) {
      (void)absl::SimpleAtoi(fields[positions_.size()], &cost);
    }
    if (cost != 0) out_.push_back({function_, file_, line_number, cost});
  }

  std::vector<CallgrindDump::SelfCost>& out_;
  std::vector<std::string> positions_ = {"line"};
  std::vector<int64_t> values_ = {0};
  std::map<std::string, std::string> files_, functions_;
  std::string file_, function_file_, function_;
  bool skip_next_ = false;
};

}  // namespace

int64_t CallgrindDump::Total(std::string_view event) const {
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i] == event) {
      return i < totals.size() ? static_cast<int64_t>(totals[i]) : 0;
    }
  }
  return -1;
}

absl::StatusOr<CallgrindDump> ParseCallgrindDump(std::string_view std_text,
                                                 std::string_view std_path) {
  const absl::string_view text = AsAbsl(std_text), path = AsAbsl(std_path);
  CallgrindDump dump;
  absl::string_view summary, totals;
  bool seen_summary = false, seen_totals = false;
  BodyReader body(dump.self_costs);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "positions: ")) {
      body.set_positions(line);
    } else if (absl::ConsumePrefix(&line, "creator: ")) {
      dump.creator = std::string(line);
    } else if (absl::ConsumePrefix(&line, "part: ")) {
      (void)absl::SimpleAtoi(line, &dump.part);
    } else if (absl::ConsumePrefix(&line, "thread: ")) {
      (void)absl::SimpleAtoi(line, &dump.thread);
    } else if (absl::ConsumePrefix(&line, "desc: Trigger: ")) {
      dump.trigger = std::string(line);
    } else if (absl::ConsumePrefix(&line, "events: ")) {
      dump.events = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    } else if (absl::ConsumePrefix(&line, "summary:")) {
      summary = line;
      seen_summary = true;
    } else if (absl::ConsumePrefix(&line, "totals:")) {
      totals = line;
      seen_totals = true;
    } else if (absl::ConsumePrefix(&line, "desc: I1 cache: ")) {
      dump.i1 = CacheGeometry(line);
    } else if (absl::ConsumePrefix(&line, "desc: D1 cache: ")) {
      dump.d1 = CacheGeometry(line);
    } else if (absl::ConsumePrefix(&line, "desc: LL cache: ")) {
      dump.ll = CacheGeometry(line);
    } else {
      body.Line(line);
    }
  }
  if (dump.events.empty() || !(seen_summary || seen_totals)) {
    return absl::DataLossError(absl::StrCat(
        "callgrind dump ", path, " has no 'events:' line or no 'summary:'/"
        "'totals:' line: not a complete callgrind profile"));
  }
  // 3.19 writes both (summary: the whole dump); later versions totals only.
  if (absl::Status s =
          ParseTotals(seen_summary ? summary : totals, dump, path);
      !s.ok()) {
    return s;
  }
  if (dump.totals.size() > dump.events.size()) {
    return absl::DataLossError(absl::StrCat(
        "callgrind dump ", path, ": its summary has ", dump.totals.size(),
        " values for ", dump.events.size(), " events"));
  }
  dump.totals.resize(dump.events.size(), 0);  // trailing zeros are omitted
  return dump;
}

static_assert(kCallgrindDumpStatsAt == VG_USERREQ__DUMP_STATS_AT,
              "callgrind_request.h's request number");

bool Callgrind::Running() {
  if (!RUNNING_ON_VALGRIND) return false;
  // Callgrind answers its requests with 0; under another tool, or none, the
  // default (1) comes back.
  return VALGRIND_DO_CLIENT_REQUEST_EXPR(1, VG_USERREQ__ZERO_STATS, 0, 0, 0, 0,
                                         0) == 0;
}

void Callgrind::ToggleCollect() { CALLGRIND_TOGGLE_COLLECT; }

void Callgrind::ZeroStats() { CALLGRIND_ZERO_STATS; }

absl::StatusOr<CallgrindDump> Callgrind::Dump(const std::string& label) {
  CallgrindDumpStatsAt(label.c_str());
  // Callgrind has written and closed the file when the request returns.
  absl::StatusOr<std::vector<CallgrindDump>> dumps = TakeDumps(label);
  if (!dumps.ok()) return dumps.status();
  if (dumps->size() != 1) {
    return absl::NotFoundError(absl::StrCat(
        "callgrind made ", dumps->size(), " dumps under '", label,
        "' next to ", base_, " where 1 was expected: pmubench reads dumps at "
        "callgrind's default place, callgrind.out.<pid>.<n> in the directory "
        "valgrind started in; if you passed --callgrind-out-file=F to "
        "valgrind, set PMUBENCH_CALLGRIND_OUT=F too, or let "
        "--pmubench_simulate start valgrind"));
  }
  return std::move(dumps->front());
}

absl::StatusOr<std::vector<CallgrindDump>> Callgrind::TakeDumps(
    const std::string& label) const {
  namespace fs = std::filesystem;
  const fs::path base(base_);
  const std::string prefix = base.filename().string() + ".";
  const std::string trigger = "Client Request: " + label;
  std::vector<CallgrindDump> dumps;
  std::error_code error;
  for (fs::directory_iterator it(base.parent_path(), error), end;
       !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    absl::StatusOr<CallgrindDump> dump =
        ParseCallgrindDump(text.str(), it->path().string());
    if (!dump.ok() || dump->trigger != trigger) continue;
    dumps.push_back(*std::move(dump));
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
  if (error) {
    return absl::NotFoundError(absl::StrCat(
        "reading callgrind's dumps in ", base.parent_path().string(), ": ",
        error.message()));
  }
  std::sort(dumps.begin(), dumps.end(),
            [](const CallgrindDump& a, const CallgrindDump& b) {
              return a.part < b.part;
            });
  return dumps;
}

std::string CallgrindOutputBase() {
  std::string base;
  if (const char* env = std::getenv("PMUBENCH_CALLGRIND_OUT");
      env != nullptr && *env != '\0') {
    base = env;
  } else {
    base = "callgrind.out.%p";
  }
  base = absl::StrReplaceAll(base, {{"%p", absl::StrCat(getpid())}});
  if (!base.empty() && base[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd)) != nullptr) base = absl::StrCat(cwd, "/", base);
  }
  return base;
}

}  // namespace pmubench::internal
