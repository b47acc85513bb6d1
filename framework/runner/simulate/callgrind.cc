#include "framework/runner/simulate/callgrind.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/runner/simulate/callgrind_request.h"

namespace pmubench::internal {
namespace {

using perf::AsAbsl;

// "32768 B, 64 B, 8-way associative" -> "32768,8,64", and callgrind's
// spelling of one way, "8192 B, 64 B, direct-mapped" -> "8192,1,64"; ""
// when not that.
std::string CacheGeometry(absl::string_view desc) {
  std::vector<absl::string_view> parts = absl::StrSplit(desc, ", ");
  uint64_t size = 0, line = 0, ways = 0;
  if (parts.size() == 3 && parts[2] == "direct-mapped") {
    ways = 1;
  } else if (parts.size() != 3 ||
             !absl::SimpleAtoi(absl::StripSuffix(parts[2], "-way associative"),
                               &ways)) {
    return "";
  }
  if (!absl::SimpleAtoi(absl::StripSuffix(parts[0], " B"), &size) ||
      !absl::SimpleAtoi(absl::StripSuffix(parts[1], " B"), &line) ||
      size == 0 || line == 0 || ways == 0) {
    return "";
  }
  return absl::StrCat(size, ",", ways, ",", line);
}

// The geometry field of `dump` that a "desc: I1 cache: ..." (D1, LL) line
// sets, or null for any other line.
std::string* CacheField(absl::string_view line, CallgrindDump& dump) {
  if (absl::StartsWith(line, "desc: I1 cache: ")) return &dump.i1;
  if (absl::StartsWith(line, "desc: D1 cache: ")) return &dump.d1;
  if (absl::StartsWith(line, "desc: LL cache: ")) return &dump.ll;
  return nullptr;
}

// A "desc: X cache: ..." line into `geometry` (empty without cache
// simulation: callgrind writes the line with nothing after it); an error
// naming the file when it is not a geometry (a cache recorded as empty
// would compare equal to any other).
absl::Status ReadCacheLine(absl::string_view line, std::string& geometry,
                           absl::string_view path) {
  const absl::string_view desc = absl::StripTrailingAsciiWhitespace(
      line.substr(sizeof("desc: I1 cache: ") - 1));
  geometry = CacheGeometry(desc);
  if (!geometry.empty() || desc.empty()) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      "callgrind dump ", path, ": its ", line.substr(6, 2), " cache line '",
      desc, "' is not 'SIZE B, LINE B, N-way associative' or 'direct-mapped'"));
}

absl::Status ParseTotals(absl::string_view values, CallgrindDump& dump,
                         absl::string_view path) {
  dump.totals.clear();
  for (absl::string_view v :
       absl::StrSplit(values, ' ', absl::SkipWhitespace())) {
    uint64_t n = 0;
    if (!absl::SimpleAtoi(v, &n)) {
      return absl::DataLossError(
          absl::StrCat("callgrind dump ", path, ": '", v,
                       "' in its summary is not a count"));
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
    absl::string_view name =
        absl::StripLeadingAsciiWhitespace(text.substr(close + 1));
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

// The largest dump pmubench reads: far above a batch's (kilobytes to a few
// megabytes), far below what would exhaust memory.
constexpr off_t kMaxDumpBytes = off_t{256} << 20;
// The header of a dump, where its "desc: Trigger:" line is (a few hundred
// bytes in callgrind 3.19).
constexpr size_t kHeaderBytes = 64 << 10;

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// True for the names callgrind gives the dumps a client request makes:
// "<base>.<part>", and "<base>.<part>-<thread>" with --separate-threads=yes
// (its dump.c, new_dumpfile).
bool IsPartName(absl::string_view name, absl::string_view prefix) {
  if (!absl::ConsumePrefix(&name, prefix)) return false;
  const std::vector<absl::string_view> fields = absl::StrSplit(name, '-');
  if (fields.size() > 2) return false;
  for (absl::string_view f : fields) {
    if (f.empty() || f.size() > 9 ||
        !std::all_of(f.begin(), f.end(), absl::ascii_isdigit)) {
      return false;
    }
  }
  return true;
}

// Up to `limit` bytes of `fd` from its current offset; false on a read error.
bool ReadUpTo(int fd, size_t limit, std::string& text) {
  char buffer[1 << 16];
  while (text.size() < limit) {
    const ssize_t n =
        ::read(fd, buffer, std::min(sizeof(buffer), limit - text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return true;
}

// The dump `name` in `dir_fd`, read and deleted when it is one of ours: a
// regular file (never a link, FIFO or device: O_NOFOLLOW, O_NONBLOCK) of
// this user with one name, whose header names `label`. nullopt for any
// other file, which is left alone; an error for one of ours too large.
absl::StatusOr<std::optional<CallgrindDump>> TakeDumpIfOurs(
    int dir_fd, const std::string& dir, const char* name,
    const std::string& label) {
  const int fd =
      ::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat opened;
  std::string text;
  const bool ours =
      ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) &&
      opened.st_uid == ::geteuid() && opened.st_nlink == 1 &&
      ReadUpTo(fd, kHeaderBytes, text) &&
      absl::StrContains(
          text, absl::StrCat("\ndesc: Trigger: Client Request: ", label, "\n"));
  const std::string path = absl::StrCat(dir, "/", name);
  if (ours && opened.st_size > kMaxDumpBytes) {
    ::close(fd);
    return absl::ResourceExhaustedError(
        absl::StrCat("callgrind dump ", path, " is ", opened.st_size,
                     " bytes, more than "
                     "pmubench reads (",
                     kMaxDumpBytes, "); it is left in place"));
  }
  const bool read = ours && ReadUpTo(fd, kMaxDumpBytes, text);
  ::close(fd);
  if (!read) return std::nullopt;
  // Deleted only while the name is still the file that was read.
  struct stat named;
  if (::fstatat(dir_fd, name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      named.st_dev == opened.st_dev && named.st_ino == opened.st_ino) {
    ::unlinkat(dir_fd, name, 0);
  }
  absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(text, path);
  if (!dump.ok()) return dump.status();
  return std::optional<CallgrindDump>(*std::move(dump));
}

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
    } else if (std::string* cache = CacheField(line, dump); cache != nullptr) {
      if (absl::Status s = ReadCacheLine(line, *cache, path); !s.ok()) {
        return s;
      }
    } else {
      body.Line(line);
    }
  }
  if (dump.events.empty() || !(seen_summary || seen_totals)) {
    return absl::DataLossError(
        absl::StrCat("callgrind dump ", path,
                     " has no 'events:' line or no 'summary:'/"
                     "'totals:' line: not a complete callgrind profile"));
  }
  // 3.19 writes both (summary: the whole dump); later versions totals only.
  if (absl::Status s = ParseTotals(seen_summary ? summary : totals, dump, path);
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

std::string Callgrind::base() const {
  return absl::StrReplaceAll(base_, {{"%p", absl::StrCat(getpid())}});
}

void Callgrind::ZeroStats() { CALLGRIND_ZERO_STATS; }

absl::StatusOr<CallgrindDump> Callgrind::Dump(const std::string& label) {
  CallgrindDumpStatsAt(label.c_str());
  // Callgrind has written and closed the file when the request returns.
  absl::StatusOr<std::vector<CallgrindDump>> dumps = TakeDumps(label);
  if (!dumps.ok()) return dumps.status();
  if (dumps->size() != 1) {
    return absl::NotFoundError(absl::StrCat(
        "callgrind made ", dumps->size(), " dumps under '", label, "' next to ",
        base(),
        " where 1 was expected: pmubench reads dumps at "
        "callgrind's default place, callgrind.out.<pid>.<n> in the directory "
        "valgrind started in; if you passed --callgrind-out-file=F to "
        "valgrind, set PMUBENCH_CALLGRIND_OUT=F too, or let "
        "--pmubench_simulate start valgrind"));
  }
  return std::move(dumps->front());
}

absl::StatusOr<std::vector<CallgrindDump>> Callgrind::TakeDumps(
    const std::string& label) const {
  const std::string base = this->base();
  const std::string dir = DirectoryOf(base);
  const std::string prefix = base.substr(base.rfind('/') + 1) + ".";
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = dir_fd < 0 ? nullptr : ::fdopendir(dir_fd);
  if (d == nullptr) {
    const int error = errno;
    if (dir_fd >= 0) ::close(dir_fd);
    return absl::NotFoundError(absl::StrCat("reading callgrind's dumps in ",
                                            dir, ": ", std::strerror(error)));
  }
  std::vector<CallgrindDump> dumps;
  absl::Status status;
  while (const dirent* entry = ::readdir(d)) {
    if (!IsPartName(entry->d_name, prefix)) continue;
    absl::StatusOr<std::optional<CallgrindDump>> dump =
        TakeDumpIfOurs(dir_fd, dir, entry->d_name, label);
    if (!dump.ok()) {
      status = dump.status();
      break;
    }
    if (dump->has_value()) dumps.push_back(**std::move(dump));
  }
  ::closedir(d);
  if (!status.ok()) return status;
  std::sort(dumps.begin(), dumps.end(),
            [](const CallgrindDump& a, const CallgrindDump& b) {
              return a.part < b.part;
            });
  return dumps;
}

absl::Status CheckDumpDirectory(const std::string& base) {
  const std::string dir = DirectoryOf(base);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "callgrind's dump directory ", dir, ": ", std::strerror(errno)));
  }
  std::string problem;
  if (st.st_uid != ::geteuid()) {
    problem = absl::StrCat("belongs to uid ", st.st_uid, ", not to you (uid ",
                           ::geteuid(), ")");
  } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    problem = absl::StrFormat(
        "can be written by %s (mode %04o)",
        (st.st_mode & S_IWOTH) != 0 ? "every user" : "its group",
        st.st_mode & 07777);
  } else {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "callgrind writes its dumps to ", dir, ", which ", problem,
      ": another user could plant files or links there that valgrind writes "
      "through and pmubench would read, so nothing is counted. Run valgrind "
      "from a directory only you can write (mkdir -m 700 DIR && cd DIR), "
      "or use --pmubench_simulate, which makes one"));
}

std::string CallgrindOutputBase() {
  std::string base;
  if (const char* env = std::getenv("PMUBENCH_CALLGRIND_OUT");
      env != nullptr && *env != '\0') {
    base = env;
  } else {
    base = "callgrind.out.%p";
  }
  if (!base.empty() && base[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd)) != nullptr)
      base = absl::StrCat(cwd, "/", base);
  }
  return base;
}

}  // namespace pmubench::internal
