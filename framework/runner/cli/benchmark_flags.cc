#include "framework/runner/cli/benchmark_flags.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/runner/cli/command_line.h"

namespace pmubench {
namespace {

using perf::AsAbsl;

enum class Kind {
  kBool,
  kText,          // any string
  kSeconds,       // a finite number >= 0
  kRepetitions,   // a whole number >= 1
  kVerbosity,     // a whole number >= 0
  kOutputFormat,  // console, json, csv
  kTimeUnit,      // ns, us, ms, s (or empty: each case's own)
  kColor,         // auto or a bool
  kKeyValues,     // key=value,... with unique keys
  kPerfCounters,  // Google Benchmark's libpfm counters: not with pmubench
};

struct Rule {
  const char* name;
  Kind kind;
};

constexpr Rule kRules[] = {
    {"benchmark_list_tests", Kind::kBool},
    {"benchmark_filter", Kind::kText},
    {"benchmark_min_time", Kind::kSeconds},
    {"benchmark_min_warmup_time", Kind::kSeconds},
    {"benchmark_repetitions", Kind::kRepetitions},
    {"benchmark_enable_random_interleaving", Kind::kBool},
    {"benchmark_report_aggregates_only", Kind::kBool},
    {"benchmark_display_aggregates_only", Kind::kBool},
    {"benchmark_format", Kind::kOutputFormat},
    {"benchmark_out", Kind::kText},
    {"benchmark_out_format", Kind::kOutputFormat},
    {"benchmark_color", Kind::kColor},
    {"benchmark_counters_tabular", Kind::kBool},
    {"benchmark_perf_counters", Kind::kPerfCounters},
    {"benchmark_context", Kind::kKeyValues},
    {"benchmark_time_unit", Kind::kTimeUnit},
    {"v", Kind::kVerbosity},
};

bool IsBoolWord(std::string_view value) {
  static const auto* words =
      new std::set<std::string>{"",  "true", "false", "yes", "no", "on", "off",
                                "1", "0",    "t",     "f",   "y",  "n"};
  return words->count(absl::AsciiStrToLower(AsAbsl(value))) > 0;
}

std::optional<long> WholeNumber(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long number = std::strtol(value.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || number < INT_MIN || number > INT_MAX) {
    return std::nullopt;
  }
  return number;
}

bool IsSeconds(const std::string& value) {
  if (value.empty()) return false;
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  return *end == '\0' && std::isfinite(seconds) && seconds >= 0;
}

bool IsKeyValues(const std::string& value) {
  std::set<std::string> keys;
  for (absl::string_view pair : absl::StrSplit(value, ',')) {
    const std::vector<std::string> kv = absl::StrSplit(pair, '=');
    if (kv.size() != 2 || !keys.insert(kv[0]).second) return false;
  }
  return true;
}

// What would be valid, or nullopt when `value` is.
std::optional<std::string> Problem(Kind kind, const std::string& value) {
  switch (kind) {
    case Kind::kBool:
      if (IsBoolWord(value)) return std::nullopt;
      return "valid values are true, false (or yes/no, on/off, 1/0)";
    case Kind::kText:
      return std::nullopt;
    case Kind::kSeconds:
      if (IsSeconds(value)) return std::nullopt;
      return "expected a number of seconds >= 0, such as 0.5";
    case Kind::kRepetitions:
      if (WholeNumber(value).value_or(0) >= 1) return std::nullopt;
      return "expected a whole number >= 1";
    case Kind::kVerbosity:
      if (WholeNumber(value).value_or(-1) >= 0) return std::nullopt;
      return "expected a whole number >= 0";
    case Kind::kOutputFormat:
      if (value == "console" || value == "json" || value == "csv") {
        return std::nullopt;
      }
      return "valid values are console, json, csv";
    case Kind::kTimeUnit:
      if (value.empty() || value == "ns" || value == "us" || value == "ms" ||
          value == "s") {
        return std::nullopt;
      }
      return "valid values are ns, us, ms, s";
    case Kind::kColor:
      if (!value.empty() && (value == "auto" || IsBoolWord(value))) {
        return std::nullopt;
      }
      return "valid values are auto, true, false";
    case Kind::kKeyValues:
      if (IsKeyValues(value)) return std::nullopt;
      return "expected key=value pairs, comma separated, each key once";
    case Kind::kPerfCounters:
      if (value.empty()) return std::nullopt;
      return "pmubench counts events itself: use --counters=EVENT,... instead";
  }
  return std::nullopt;
}

absl::Status CheckArgv(const Rule& rule, int argc, char** argv, bool* seen) {
  const std::string bare = absl::StrCat("--", rule.name);
  const std::string with_value = bare + "=";
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == bare) {
      *seen = true;
      if (rule.kind == Kind::kBool) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "flag '", arg, "' needs a value: write ", with_value, "VALUE"));
    }
    if (!absl::StartsWith(arg, with_value)) continue;
    *seen = true;
    const std::string value(arg.substr(with_value.size()));
    if (std::optional<std::string> problem = Problem(rule.kind, value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad value in '", arg, "': ", *problem));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateBenchmarkFlags(int argc, char** argv) {
  for (const Rule& rule : kRules) {
    bool seen = false;
    if (absl::Status s = CheckArgv(rule, argc, argv, &seen); !s.ok()) {
      return s;
    }
    if (seen) continue;
    const std::string env = EnvVarOf(rule.name);
    const char* value = std::getenv(env.c_str());
    if (value == nullptr) continue;
    if (std::optional<std::string> problem = Problem(rule.kind, value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad value in the environment: ", env, "=", value,
                       " (the default of --", rule.name, "): ", *problem));
    }
  }
  return absl::OkStatus();
}

bool BenchmarkFlagIsTrue(std::string_view value) {
  const std::string lower = absl::AsciiStrToLower(AsAbsl(value));
  return !(lower == "false" || lower == "no" || lower == "off" ||
           lower == "0" || lower == "f" || lower == "n");
}

}  // namespace pmubench
