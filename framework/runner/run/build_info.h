// Whether the code that runs the cases was compiled with optimization.
//
// Timings and counts of code compiled without optimization (-O0: CMake's
// Debug, Bazel's default fastbuild) are those of code nobody ships, often
// several times slower. The PMU_BENCHMARK* macros expand in the user's
// translation unit, where `__OPTIMIZE__` (defined by GCC and Clang at -O1
// and above) tells how *that* file was compiled; each registration records
// it here, and the run reports it once: a `pmubench_cases_optimized` key in
// the JSON context and, when a case was built without optimization, a
// warning naming its files, as Google Benchmark warns about its own library
// ("Library was built as DEBUG").
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_BUILD_INFO_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_BUILD_INFO_H_

#include <ostream>
#include <string>
#include <vector>

namespace pmubench {

namespace internal {

// Called by the registration macros: a case registered from `file`
// (__FILE__) was, or was not, compiled with optimization.
void NoteCaseBuild(const char* file, bool optimized);

}  // namespace internal

// The source files of registered cases compiled without optimization, each
// once, in registration order.
std::vector<std::string> UnoptimizedCaseFiles();

// "true" when every registered case was compiled with optimization, else
// "false": the value of the `pmubench_cases_optimized` context key.
constexpr char kCasesOptimizedKey[] = "pmubench_cases_optimized";
std::string CasesOptimizedValue();

// The warning to print before the run, or "" when every case was optimized.
std::string UnoptimizedWarning();

// Adds kCasesOptimizedKey to the run's JSON context
// (benchmark::AddCustomContext) and writes UnoptimizedWarning(), if any, to
// `warnings`. Call once, after benchmark::Initialize and before
// benchmark::RunSpecifiedBenchmarks.
void ReportCaseBuild(std::ostream& warnings);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_BUILD_INFO_H_
