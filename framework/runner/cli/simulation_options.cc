#include "framework/runner/cli/simulation_options.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench::internal {
namespace {

using perf::AsAbsl;

// The child valgrind runs, for the signal handler to pass signals on to.
volatile sig_atomic_t g_child = 0;

void PassOn(int signal) {
  if (g_child > 0) kill(g_child, signal);
}

std::string PrivateDirectory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(
      tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/pmubench-callgrind.XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

// Waits for `child`, as a shell reports it: the exit code, or 128 + signal.
int WaitFor(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

}  // namespace

absl::StatusOr<SimulationMode> ParseSimulationMode(std::string_view value) {
  if (value == "instructions" || value == "true") {
    return SimulationMode::kInstructions;
  }
  if (value == "cache") return SimulationMode::kCache;
  return absl::InvalidArgumentError(absl::StrCat(
      "--pmubench_simulate=", AsAbsl(value), ": give 'instructions' (instructions "
      "only, the fastest) or 'cache' (plus simulated caches and branches)"));
}

absl::Status CheckCacheGeometry(std::string_view flag, std::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(AsAbsl(value), ',');
  uint64_t size = 0, ways = 0, line = 0;
  const bool numbers = parts.size() == 3 && absl::SimpleAtoi(parts[0], &size) &&
                       absl::SimpleAtoi(parts[1], &ways) &&
                       absl::SimpleAtoi(parts[2], &line) && size > 0 &&
                       ways > 0 && line > 0;
  const uint64_t sets = numbers ? size / (ways * line) : 0;
  if (!numbers || size % (ways * line) != 0 || sets == 0 ||
      (sets & (sets - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", AsAbsl(flag), "=", AsAbsl(value), ": give SIZE,ASSOCIATIVITY,LINE_SIZE in "
        "bytes as valgrind's --I1/--D1/--LL take them, with SIZE / "
        "(ASSOCIATIVITY * LINE_SIZE) a power of two, e.g. 32768,8,64"));
  }
  return absl::OkStatus();
}

std::string GeometryText(const SimulationOptions& options) {
  if (options.mode != SimulationMode::kCache) return "none";
  return absl::StrCat("I1=", options.i1, " D1=", options.d1, " LL=",
                      options.ll);
}

std::vector<std::string> CallgrindCommand(const SimulationOptions& options,
                                          const std::string& valgrind,
                                          const std::string& out_base,
                                          const std::string& exe,
                                          const std::vector<std::string>& args) {
  std::vector<std::string> command = {
      valgrind, "-q", "--tool=callgrind", "--collect-atstart=no",
      "--separate-threads=yes", absl::StrCat("--callgrind-out-file=", out_base)};
  if (options.mode == SimulationMode::kCache) {
    command.insert(command.end(),
                   {"--cache-sim=yes", "--branch-sim=yes",
                    absl::StrCat("--I1=", options.i1),
                    absl::StrCat("--D1=", options.d1),
                    absl::StrCat("--LL=", options.ll)});
  }
  command.push_back(exe);
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

std::optional<std::string> FindOnPath(std::string_view program) {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    std::string candidate = absl::StrCat(dir, "/", AsAbsl(program));
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

absl::StatusOr<int> RunUnderCallgrind(const SimulationOptions& options,
                                      const std::vector<std::string>& args) {
  std::optional<std::string> valgrind = FindOnPath("valgrind");
  if (!valgrind.has_value()) {
    return absl::NotFoundError(
        "--pmubench_simulate runs the benchmarks under Valgrind's callgrind, "
        "and valgrind is not on PATH: install it (Debian: apt-get install "
        "valgrind)");
  }
  // Valgrind resolves /proc/self/exe to itself: pass the binary's own path.
  std::error_code error;
  const std::string exe =
      std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error) {
    return absl::InternalError(absl::StrCat(
        "cannot resolve /proc/self/exe: ", error.message()));
  }
  const std::string dir = PrivateDirectory();
  if (dir.empty()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot make a private directory for callgrind's dumps under "
        "$TMPDIR or /tmp: ", std::strerror(errno), "; set TMPDIR to a "
        "writable directory"));
  }
  const std::string base = dir + "/callgrind.out";
  std::vector<std::string> command =
      CallgrindCommand(options, *valgrind, base, exe, args);
  std::vector<char*> argv;
  for (std::string& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("PMUBENCH_CALLGRIND_OUT", base.c_str(), 1);
  const pid_t parent = getpid();
  const pid_t child = fork();
  const int fork_errno = errno;
  if (child == 0) {
    // Ends with us, should we be killed.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 127;
  if (child > 0) {
    g_child = child;
    for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, PassOn);
    status = WaitFor(child);
    g_child = 0;
  }
  std::filesystem::remove_all(dir, error);
  if (child < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("fork: ", std::strerror(fork_errno)));
  }
  return status;
}

}  // namespace pmubench::internal
