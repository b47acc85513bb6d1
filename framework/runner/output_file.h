// Makes Google Benchmark's --benchmark_out file appear whole or not at all:
// the flag in argv is pointed at a temporary name beside the requested file
// (same directory, so rename(2) is atomic), and Commit() renames it into
// place once every benchmark has been reported.
//
//   OutputFileGuard out;
//   if (absl::Status s = out.Redirect(argc, argv); !s.ok()) { exit 2; }
//   benchmark::Initialize(&argc, argv); ... RunSpecifiedBenchmarks() ...
//   out.Commit();
//
// NOTE: the guard owns the rewritten argv string: keep it alive (and in place)
// until benchmark::Initialize has parsed argv.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_FILE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace pmubench {

class OutputFileGuard {
 public:
  OutputFileGuard() = default;
  OutputFileGuard(const OutputFileGuard&) = delete;
  OutputFileGuard& operator=(const OutputFileGuard&) = delete;
  // Removes the temporary file unless Commit() succeeded.
  ~OutputFileGuard();

  // Finds --benchmark_out=PATH in argv and rewrites it to PATH's temporary
  // name, after checking that the temporary file can be created there. No
  // flag (or an empty value): nothing to do.
  absl::Status Redirect(int argc, char** argv);

  // Renames the temporary file to the requested path.
  absl::Status Commit();

  bool active() const { return !final_path_.empty(); }
  const std::string& final_path() const { return final_path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string final_path_;
  std::string temp_path_;
  std::string rewritten_arg_;
  bool committed_ = false;
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_FILE_H_
