#include "framework/runner/run/build_info.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <mutex>

#include "absl/strings/str_join.h"

namespace pmubench {
namespace {

struct CaseBuilds {
  std::mutex mu;
  std::vector<std::string> unoptimized_files;
};

// Function-local so registration from static initializers in any translation
// unit finds it constructed.
CaseBuilds& Builds() {
  static auto* builds = new CaseBuilds();
  return *builds;
}

}  // namespace

namespace internal {

void NoteCaseBuild(const char* file, bool optimized) {
  CaseBuilds& builds = Builds();
  std::lock_guard<std::mutex> lock(builds.mu);
  if (optimized) return;
  const std::string path = file == nullptr ? "" : file;
  std::vector<std::string>& files = builds.unoptimized_files;
  if (std::find(files.begin(), files.end(), path) == files.end()) {
    files.push_back(path);
  }
}

}  // namespace internal

std::vector<std::string> UnoptimizedCaseFiles() {
  CaseBuilds& builds = Builds();
  std::lock_guard<std::mutex> lock(builds.mu);
  return builds.unoptimized_files;
}

std::string CasesOptimizedValue() {
  return UnoptimizedCaseFiles().empty() ? "true" : "false";
}

std::string UnoptimizedWarning() {
  const std::vector<std::string> files = UnoptimizedCaseFiles();
  if (files.empty()) return "";
  return "***WARNING*** pmubench: cases compiled without optimization (no "
         "-O: timings and counts are not those of optimized code): " +
         absl::StrJoin(files, ", ") +
         ". Build them optimized: CMake -DCMAKE_BUILD_TYPE=Release (or "
         "RelWithDebInfo), Bazel -c opt.";
}

void ReportCaseBuild(std::ostream& warnings) {
  benchmark::AddCustomContext(kCasesOptimizedKey, CasesOptimizedValue());
  if (const std::string warning = UnoptimizedWarning(); !warning.empty()) {
    warnings << warning << "\n";
  }
}

}  // namespace pmubench
