// Command-line handling for pmubench_main, apart from main() so it is
// testable: what is left of argv after benchmark::Initialize must be our own
// Abseil flags, and a few Google Benchmark flags are peeked at before
// Initialize consumes them.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_COMMAND_LINE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_COMMAND_LINE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace pmubench {

// Sets the Abseil flags named in `allowed` from argv[1..argc) ("--name=value",
// "--name value" is not accepted; a bool may be "--name" or "--noname").
// Anything else is an InvalidArgument error naming the argument and what
// would be valid.
absl::Status ParseOwnFlags(int argc, char** argv,
                           const std::vector<std::string>& allowed);

// The value of the last "--name=value" in argv; "true" for a bare "--name".
std::optional<std::string> PeekFlag(int argc, char** argv,
                                    std::string_view name);

// As Google Benchmark 1.7.1 reads its flag `name`: PeekFlag, else the
// environment variable of the upper-cased name (BENCHMARK_OUT for
// benchmark_out), which it reads as the flag's default.
std::optional<std::string> FlagOrEnv(int argc, char** argv,
                                     std::string_view name);

// The environment variable Google Benchmark reads for its flag `name`.
std::string EnvVarOf(std::string_view name);

// True when argv asks for help (--help, -h, --helpfull, -help).
bool WantsHelp(int argc, char** argv);

// The --help text: our flags (name, default, help) and a list of Google
// Benchmark's flags, which pass through unchanged.
std::string HelpText(std::string_view program,
                     const std::vector<std::string>& own_flags);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_COMMAND_LINE_H_
