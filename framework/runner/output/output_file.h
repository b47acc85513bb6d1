// The --benchmark_out file, written whole or not at all (atomic_file.h).
//
// Google Benchmark 1.7.1 opens --benchmark_out itself, truncating it before
// the first benchmark runs, and never checks a write. So the flag (or the
// BENCHMARK_OUT environment variable it defaults to) is taken out of its
// hands: its argument is rewritten to /dev/null and the file reporter is a
// CapturedReporter that keeps the file's text in memory (strict JSON for
// --benchmark_out_format=json). Commit() writes it once every benchmark has
// been reported, and only if at least one run was reported
// (--benchmark_list_tests reports none).
//
//   std::vector<char*> args(argv, argv + argc);
//   OutputFile out;
//   if (absl::Status s = out.Prepare(&args); !s.ok()) { exit 2; }
//   benchmark::Initialize(...args...);
//   benchmark::RunSpecifiedBenchmarks(display, out.reporter());
//   out.Commit();
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_OUTPUT_FILE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_OUTPUT_FILE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/runner/output/atomic_file.h"
#include "framework/runner/output/captured_reporter.h"

namespace pmubench {

// `path` as the user meant it: a relative path is resolved against
// $BUILD_WORKING_DIRECTORY when set (`bazel run` sets it to the directory it
// was started from, and starts the binary in its runfiles tree).
std::string ResolveOutputPath(const std::string& path);

class OutputFile {
 public:
  // Finds the requested path (the last --benchmark_out=PATH in `args`, else
  // $BENCHMARK_OUT), resolves a relative one against $BUILD_WORKING_DIRECTORY
  // when set (`bazel run` sets it to the directory it was started from),
  // checks that it can be written, and rewrites `args` so Google Benchmark
  // writes to /dev/null. No path (or an empty one): nothing to do. The
  // strings in `args` stay owned by this object: keep it alive while they
  // are used.
  absl::Status Prepare(std::vector<char*>* args);

  // Before Prepare: wraps the JSON reporter the file is written by (the
  // profile fields of profile_json.h).
  using Wrapper = std::function<std::unique_ptr<benchmark::BenchmarkReporter>(
      std::unique_ptr<benchmark::BenchmarkReporter>)>;
  void set_json_wrapper(Wrapper wrap) { json_wrapper_ = std::move(wrap); }

  // The reporter to pass to RunSpecifiedBenchmarks as the file reporter, or
  // nullptr when no file was requested.
  benchmark::BenchmarkReporter* reporter() { return reporter_.get(); }

  // Writes the file if any run was reported: true if it was written, false
  // if there was nothing to write. An error leaves no file. `allow_empty`:
  // written with no run too (a shard that selects no case).
  absl::StatusOr<bool> Commit(bool allow_empty = false);

  bool active() const { return reporter_ != nullptr; }
  // The path as resolved by Prepare().
  const std::string& path() const { return file_.path(); }

 private:
  AtomicFile file_;
  std::string content_;
  std::unique_ptr<CapturedReporter> reporter_;
  std::string rewritten_arg_;
  Wrapper json_wrapper_;
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_OUTPUT_FILE_H_
