// The end-to-end tests' subprocess: the path of runner_e2e_cases and a run of
// a shell command with its streams captured.
//
// The path comes from PMUBENCH_E2E_CASES_PATH (CMake compiles it in) or from
// --e2e_cases=PATH on the test's command line (Bazel passes
// $(rootpath :runner_e2e_cases)); main() calls TakeCasesBinaryFlag.
#ifndef PMUBENCH_TESTS_RUNNER_CASES_BINARY_H_
#define PMUBENCH_TESTS_RUNNER_CASES_BINARY_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/runner/text_of_runs.h"

namespace pmubench::testing {

inline std::string& CasesBinary() {
#ifdef PMUBENCH_E2E_CASES_PATH
  static std::string path = PMUBENCH_E2E_CASES_PATH;
#else
  static std::string path;
#endif
  return path;
}

// Sets CasesBinary() from --e2e_cases=PATH, if given. Bazel's rootpath is
// relative to the test's working directory (its runfiles), and tests run
// the binary from a directory of their own (`cd DIR && ...`), so a relative
// PATH is made absolute here.
// `path` made absolute against the working directory (a test later runs
// binaries from a directory of its own).
inline std::string AbsolutePath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  std::string absolute = path;
  if (char* cwd = getcwd(nullptr, 0); cwd != nullptr) {
    absolute = std::string(cwd) + "/" + path;
    std::free(cwd);
  }
  return absolute;
}

// The value of --FLAG=PATH among argv, made absolute, or "" without it.
inline std::string TakeBinaryFlag(int argc, char** argv,
                                  const std::string& flag) {
  const std::string prefix = "--" + flag + "=";
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) == 0) path = arg.substr(prefix.size());
  }
  return AbsolutePath(path);
}

inline void TakeCasesBinaryFlag(int argc, char** argv) {
  if (std::string path = TakeBinaryFlag(argc, argv, "e2e_cases");
      !path.empty()) {
    CasesBinary() = path;
  }
}

// Runs `command` through sh, its stdout to `out_path` and its stderr to
// `out_path`.err; both are read back and removed.
inline Result RunShell(const std::string& command,
                       const std::string& out_path) {
  const std::string err_path = out_path + ".err";
  const int status = std::system(
      (command + " >'" + out_path + "' 2>'" + err_path + "'").c_str());
  Result result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  return result;
}

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_CASES_BINARY_H_
