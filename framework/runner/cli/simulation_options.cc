#include "framework/runner/cli/simulation_options.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/runner/cli/self_exe.h"

namespace pmubench::internal {
namespace {

using perf::AsAbsl;

// The child valgrind runs, for the signal handler to pass signals on to.
volatile sig_atomic_t g_child = 0;

void PassOn(int signal) {
  if (g_child > 0) kill(g_child, signal);
}

bool IsPowerOfTwo(uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

// Callgrind's smallest line size: valgrind's own minimum, 16 (cachegrind's
// cg_arch.c), and the size of the machine's largest register ("Callgrind:
// cannot continue: the minimum line size (16) must be equal to or larger
// than the maximum register size (32)"), 32 bytes on x86-64 with AVX.
uint64_t MinimumLineSize() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx")) return 32;
#endif
  return 16;
}

constexpr std::string_view kDirectoryPrefix = "pmubench-callgrind.";

std::string TemporaryRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

// The pid in a private directory's name ("pmubench-callgrind.<pid>.XXXXXX"),
// or 0 when the name is not one.
pid_t DirectoryPid(std::string_view name) {
  if (name.substr(0, kDirectoryPrefix.size()) != kDirectoryPrefix) return 0;
  name.remove_prefix(kDirectoryPrefix.size());
  const size_t dot = name.find('.');
  int64_t pid = 0;
  if (dot == std::string_view::npos || dot == 0 || dot > 10 ||
      !absl::SimpleAtoi(AsAbsl(name.substr(0, dot)), &pid) || pid <= 0 ||
      pid > INT_MAX) {
    return 0;
  }
  return static_cast<pid_t>(pid);
}

// Removes the directory `name` of `parent_fd` and the files in it, never
// following a link (the dumps are plain files).
void RemoveDirectoryAndFiles(int parent_fd, const char* name) {
  const int fd = ::openat(parent_fd, name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (DIR* d = fd < 0 ? nullptr : ::fdopendir(fd)) {
    while (const dirent* entry = ::readdir(d)) {
      ::unlinkat(fd, entry->d_name, 0);  // "." and "..": EISDIR
    }
    ::closedir(d);
  } else if (fd >= 0) {
    ::close(fd);
  }
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

// Removes `name` from `root_fd` if it is a private directory that a killed
// run left: a directory (not a link) of this user, named with a pid that is
// gone, its lock not held (a run in another pid namespace holds it).
// Anything that cannot be proven stale is kept.
void RemoveIfStale(int root_fd, const char* name) {
  const pid_t pid = DirectoryPid(name);
  if (pid <= 0 || pid == ::getpid()) return;
  if (::kill(pid, 0) == 0 || errno != ESRCH) return;  // alive, or unknown
  const int fd =
      ::openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_uid == ::geteuid() &&
      ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    RemoveDirectoryAndFiles(root_fd, name);
  }
  ::close(fd);
}

// Private directories of runs killed before they could remove theirs (a
// CI timeout kills the whole process group).
void RemoveStaleDirectories(const std::string& root) {
  DIR* d = ::opendir(root.c_str());
  if (d == nullptr) return;
  while (const dirent* entry = ::readdir(d)) {
    RemoveIfStale(::dirfd(d), entry->d_name);
  }
  ::closedir(d);
}

// The free bytes of the file system of `dir`, or -1 when unknown.
int64_t FreeBytes(const std::string& dir) {
  struct statvfs fs;
  if (::statvfs(dir.c_str(), &fs) != 0) return -1;
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

// A private directory for callgrind's dumps, "pmubench-callgrind.<pid>.
// XXXXXX" (mkdtemp(3)) under $TMPDIR or /tmp, and a descriptor holding its
// lock while this process lives (RemoveIfStale). An error names the
// directory and what to do.
absl::StatusOr<std::pair<std::string, int>> MakePrivateDirectory() {
  const std::string root = TemporaryRoot();
  RemoveStaleDirectories(root);
  // Callgrind writes every batch's dumps there (kilobytes to megabytes
  // each); valgrind does not say which file system is full.
  if (const int64_t free = FreeBytes(root); free >= 0 && free < (1 << 20)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the file system of $TMPDIR (", root, ") is full (", free,
        " bytes free), and callgrind writes its dumps there: free some "
        "space, or set TMPDIR to a directory with room"));
  }
  std::string path =
      absl::StrCat(root, "/", AsAbsl(kDirectoryPrefix), ::getpid(), ".XXXXXX");
  const int fd = ::mkdtemp(path.data()) == nullptr
                     ? -1
                     : ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot make a private directory for callgrind's dumps in ", root, ": ",
        std::strerror(errno), "; set TMPDIR to a writable directory"));
  }
  ::flock(fd, LOCK_EX);
  return std::make_pair(std::move(path), fd);
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
      "--pmubench_simulate=", AsAbsl(value),
      ": give 'instructions' (instructions "
      "only, the fastest) or 'cache' (plus simulated caches and branches)"));
}

absl::Status CheckCacheGeometry(std::string_view flag, std::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(AsAbsl(value), ',');
  uint64_t size = 0, ways = 0, line = 0;
  const bool numbers = parts.size() == 3 && absl::SimpleAtoi(parts[0], &size) &&
                       absl::SimpleAtoi(parts[1], &ways) &&
                       absl::SimpleAtoi(parts[2], &line) && size > 0 &&
                       ways > 0 && line > 0 && size <= INT_MAX &&
                       ways <= INT_MAX && line <= INT_MAX;
  const uint64_t sets = numbers ? size / (ways * line) : 0;
  const uint64_t min_line = MinimumLineSize();
  std::string problem;
  if (!numbers) {
    problem = "three whole numbers from 1 to 2147483647";
  } else if (size % (ways * line) != 0 || !IsPowerOfTwo(sets)) {
    problem = "SIZE / (ASSOCIATIVITY * LINE_SIZE), the sets, a power of two";
  } else if (!IsPowerOfTwo(line) || line < min_line) {
    problem = absl::StrCat("LINE_SIZE a power of two of at least ", min_line,
                           " bytes (callgrind's minimum here: its largest "
                           "register)");
  } else if (size <= line) {
    problem = "SIZE larger than LINE_SIZE";
  } else {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--", AsAbsl(flag), "=", AsAbsl(value),
      ": give SIZE,ASSOCIATIVITY,"
      "LINE_SIZE in bytes as valgrind's --I1/--D1/--LL take them, e.g. "
      "32768,8,64, with ",
      problem));
}

std::string GeometryText(const SimulationOptions& options) {
  if (options.mode != SimulationMode::kCache) return "none";
  return absl::StrCat("I1=", options.i1, " D1=", options.d1,
                      " LL=", options.ll);
}

std::vector<std::string> CallgrindCommand(
    const SimulationOptions& options, const std::string& valgrind,
    const std::string& out_base, const std::string& exe,
    const std::vector<std::string>& args) {
  std::vector<std::string> command = {
      valgrind, "-q", "--tool=callgrind", "--collect-atstart=no",
      "--separate-threads=yes", absl::StrCat("--callgrind-out-file=", out_base),
      // No gdbserver: its FIFOs in $TMPDIR outlive a killed run.
      "--vgdb=no",
      // Valgrind's default, pinned: the fresh heap's hand-off
      // (measure/fresh_heap.cc) tells a thread blocked in pthread_join by
      // its futex, and with --fair-sched=yes every thread waiting for
      // valgrind's lock sits in a futex too.
      "--fair-sched=no"};
  if (options.mode == SimulationMode::kCache) {
    command.insert(command.end(), {"--cache-sim=yes", "--branch-sim=yes",
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
  absl::StatusOr<std::string> self = SelfExecutable();
  if (!self.ok()) return self.status();
  const std::string& exe = *self;
  absl::StatusOr<std::pair<std::string, int>> private_dir =
      MakePrivateDirectory();
  if (!private_dir.ok()) return private_dir.status();
  const auto& [dir, dir_lock] = *private_dir;
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
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  ::close(dir_lock);
  if (child < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("fork: ", std::strerror(fork_errno)));
  }
  return status;
}

}  // namespace pmubench::internal
