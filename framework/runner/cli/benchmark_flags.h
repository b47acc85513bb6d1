// Checks Google Benchmark 1.7.1's own flags before benchmark::Initialize
// sees them. Left to Google Benchmark, a bad --benchmark_format,
// --benchmark_out_format, --benchmark_time_unit or an empty
// --benchmark_color prints its usage and exits 0, --benchmark_repetitions=-3
// aborts mid-run, a value that does not parse as a number leaves the flag in
// argv ("unknown flag"), and a bool flag takes any word as true. Each flag is
// checked where it is given (--name=value, every occurrence) or, when it is
// not, in the environment variable Google Benchmark reads as its default
// (BENCHMARK_FORMAT for --benchmark_format).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_BENCHMARK_FLAGS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_BENCHMARK_FLAGS_H_

#include <string_view>

#include "absl/status/status.h"

namespace pmubench {

// InvalidArgument naming the flag (or environment variable), its value and
// what would be valid, for the first bad one.
absl::Status ValidateBenchmarkFlags(int argc, char** argv);

// A bool flag's value as Google Benchmark reads it (IsTruthyFlagValue in
// its commandlineflags.cc): false for false/no/off/0/f/n in any case.
bool BenchmarkFlagIsTrue(std::string_view value);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_BENCHMARK_FLAGS_H_
