#include "framework/runner/cli/command_line.h"

#include <algorithm>
#include <cstdlib>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench {
namespace {

using perf::AsAbsl;

bool Contains(const std::vector<std::string>& names, absl::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string ValidFlags(const std::vector<std::string>& allowed) {
  std::vector<std::string> dashed;
  for (const std::string& name : allowed) dashed.push_back("--" + name);
  return absl::StrCat(
      absl::StrJoin(dashed, ", "),
      " and Google Benchmark's --benchmark_* flags (see --help)");
}

}  // namespace

absl::Status ParseOwnFlags(int argc, char** argv,
                           const std::vector<std::string>& allowed) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    absl::string_view body = arg;
    if (absl::StartsWith(body, "--")) {
      body.remove_prefix(2);
    } else if (absl::StartsWith(body, "-") && body.size() > 1) {
      body.remove_prefix(1);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg,
                       "': pmubench takes only flags: ", ValidFlags(allowed)));
    }
    const size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    std::optional<std::string> value;
    if (eq != absl::string_view::npos) value = std::string(body.substr(eq + 1));

    absl::CommandLineFlag* flag =
        Contains(allowed, name) ? absl::FindCommandLineFlag(name) : nullptr;
    if (flag == nullptr && absl::StartsWith(name, "no") && !value) {
      const std::string positive = name.substr(2);
      absl::CommandLineFlag* negated = Contains(allowed, positive)
                                           ? absl::FindCommandLineFlag(positive)
                                           : nullptr;
      if (negated != nullptr && negated->IsOfType<bool>()) {
        flag = negated;
        value = "false";
      }
    }
    if (flag == nullptr) {
      const std::string hint =
          absl::StartsWith(name, "benchmark_")
              ? " (Google Benchmark 1.7.1 has no such flag, or it needs "
                "--name=value)"
              : "";
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", arg, "'",
                                                     hint, ": valid flags are ",
                                                     ValidFlags(allowed)));
    }
    if (!value) {
      if (!flag->IsOfType<bool>()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "flag '", arg, "' needs a value: write --", name, "=VALUE"));
      }
      value = "true";
    }
    std::string error;
    if (!flag->ParseFrom(*value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad value in '", arg, "': ", error));
    }
  }
  return absl::OkStatus();
}

std::optional<std::string> PeekFlag(int argc, char** argv,
                                    std::string_view name) {
  std::optional<std::string> found;
  const std::string with_value = absl::StrCat("--", AsAbsl(name), "=");
  const std::string bare = absl::StrCat("--", AsAbsl(name));
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (absl::StartsWith(arg, with_value)) {
      found = std::string(arg.substr(with_value.size()));
    } else if (arg == bare) {
      found = "true";
    }
  }
  return found;
}

std::string EnvVarOf(std::string_view name) {
  return absl::AsciiStrToUpper(AsAbsl(name));
}

std::optional<std::string> FlagOrEnv(int argc, char** argv,
                                     std::string_view name) {
  if (std::optional<std::string> flag = PeekFlag(argc, argv, name)) {
    return flag;
  }
  if (const char* env = std::getenv(EnvVarOf(name).c_str())) {
    return std::string(env);
  }
  return std::nullopt;
}

bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "-help" ||
        arg == "--helpfull") {
      return true;
    }
  }
  return false;
}

std::string HelpText(std::string_view program,
                     const std::vector<std::string>& own_flags) {
  std::string text = absl::StrCat(
      "Usage: ", AsAbsl(program),
      " [--counters=SPEC,...|none] [pmubench flags] [--benchmark_* flags]\n\n"
      "Runs the registered benchmarks; PMU_BENCHMARK cases report counter "
      "values per iteration\nbeside the time (console and JSON).\n\n"
      "pmubench flags:\n");
  for (const std::string& name : own_flags) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) continue;
    absl::StrAppend(&text, "  --", name, " (default: \"", flag->DefaultValue(),
                    "\")\n      ", flag->Help(), "\n");
  }
  absl::StrAppend(
      &text,
      "\nGoogle Benchmark 1.7.1 flags, passed through unchanged:\n"
      "  --benchmark_list_tests={true|false}\n"
      "  --benchmark_filter=<regex>\n"
      "  --benchmark_min_time=<seconds>\n"
      "  --benchmark_min_warmup_time=<seconds>\n"
      "  --benchmark_repetitions=<n>\n"
      "  --benchmark_enable_random_interleaving={true|false}\n"
      "  --benchmark_report_aggregates_only={true|false}\n"
      "  --benchmark_display_aggregates_only={true|false}\n"
      "  --benchmark_format=<console|json|csv>\n"
      "  --benchmark_out=<filename>\n"
      "      Written whole or not at all, as strict JSON (no NaN). Relative\n"
      "      to $BUILD_WORKING_DIRECTORY when set (the directory `bazel run`\n"
      "      was started from), else to the current directory. Also read\n"
      "      from $BENCHMARK_OUT, like every flag here from $BENCHMARK_*.\n"
      "  --benchmark_out_format=<json|console|csv>\n"
      "  --benchmark_color={auto|true|false}\n"
      "  --benchmark_counters_tabular={true|false}\n"
      "      One column per counter under a header of the same widths: user\n"
      "      counters, then pmubench's in event-set order.\n"
      "  --benchmark_context=<key>=<value>,...\n"
      "  --benchmark_time_unit={ns|us|ms|s}\n"
      "On a terminal, stderr shows a progress line (case i of N, elapsed, "
      "estimate of the time left), erased at the end.\n"
      "Exit status: 0 after a run (failed cases are marked in the output), "
      "2 on bad flags or events or when no benchmark ran, 1 when the "
      "--benchmark_out file could not be written whole.\n");
  return text;
}

}  // namespace pmubench
