#include "framework/runner/run/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/runner/cli/self_exe.h"
#include "framework/runner/run/flush_streams.h"

namespace pmubench::internal {
namespace {

// Flags only the parent acts on: its output (the worker reports runs to its
// own file), the number of workers, the shard (the parent has narrowed the
// cases already).
bool ParentOnly(std::string_view arg) {
  for (std::string_view flag :
       {"--benchmark_out=", "--benchmark_out_format=", "--benchmark_format=",
        "--pmubench_jobs=", "--pmubench_shard=", "--pmubench_shard_costs="}) {
    if (arg.substr(0, flag.size()) == flag) return true;
  }
  return false;
}

// In the forked child: the worker's environment, streams and pipe ends
// (`pipes`: its IN read end and OUT write end, kept open across exec), then
// exec.
[[noreturn]] void ExecWorker(const std::string& exe, std::vector<char*>& argv,
                             const std::string& files, WorkerPipes pipes,
                             pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(128 + SIGTERM);
  setenv(kWorkerEnv, files.c_str(), 1);
  setenv(kWorkerPipesEnv, absl::StrCat(pipes.in, ",", pipes.out).c_str(), 1);
  for (int fd : {pipes.in, pipes.out}) {
    if (fcntl(fd, F_SETFD, 0) < 0) _exit(127);
  }
  // Google Benchmark's environment spellings of the parent-only flags.
  for (const char* name :
       {"BENCHMARK_OUT", "BENCHMARK_OUT_FORMAT", "BENCHMARK_FORMAT"}) {
    unsetenv(name);
  }
  const std::string log = files + ".log";
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (fd < 0 || null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(fd, 1) < 0 ||
      dup2(fd, 2) < 0) {
    _exit(127);
  }
  execv(exe.c_str(), argv.data());
  _exit(127);
}

}  // namespace

std::optional<std::string> WorkerFiles() {
  const char* files = std::getenv(kWorkerEnv);
  if (files == nullptr || *files == '\0') return std::nullopt;
  return std::string(files);
}

std::vector<std::string> WorkerArgs(const std::vector<std::string>& args) {
  std::vector<std::string> kept;
  for (const std::string& arg : args) {
    if (!ParentOnly(arg)) kept.push_back(arg);
  }
  return kept;
}

std::optional<WorkerPipes> WorkerPipesFromEnv() {
  const char* text = std::getenv(kWorkerPipesEnv);
  WorkerPipes pipes;
  if (text == nullptr ||
      std::sscanf(text, "%d,%d", &pipes.in, &pipes.out) != 2 ||
      fcntl(pipes.in, F_GETFD) < 0 || fcntl(pipes.out, F_GETFD) < 0) {
    return std::nullopt;
  }
  return pipes;
}

namespace {

// A child process with both pipes: `in_child` runs in it with the child's
// ends and does not return; the parent gets the child's pid and its own
// ends. Close-on-exec everywhere, so another worker never holds this one's
// ends (its "done" pipe then reads end of file when it ends); the child
// closes the parent's ends itself, which a child that does not exec keeps.
absl::StatusOr<WorkerHandle> StartChild(
    const std::function<void(WorkerPipes)>& in_child) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("pipe: ", std::strerror(errno)));
  }
  if (pipe2(out, O_CLOEXEC) < 0) {
    const int pipe_errno = errno;
    for (int fd : in) ::close(fd);
    return absl::ResourceExhaustedError(
        absl::StrCat("pipe: ", std::strerror(pipe_errno)));
  }
  const pid_t child = fork();
  const int fork_errno = errno;
  if (child == 0) {
    ::close(in[1]);
    ::close(out[0]);
    in_child({in[0], out[1]});
    _exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (child < 0) {
    ::close(in[1]);
    ::close(out[0]);
    return absl::ResourceExhaustedError(
        absl::StrCat("fork: ", std::strerror(fork_errno)));
  }
  return WorkerHandle{child, in[1], out[0]};
}

}  // namespace

absl::StatusOr<WorkerHandle> StartWorker(const std::vector<std::string>& args,
                                         const std::string& files) {
  absl::StatusOr<std::string> exe = SelfExecutable();
  if (!exe.ok()) return exe.status();
  std::vector<std::string> command = {*exe};
  command.insert(command.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  return StartChild(
      [&](WorkerPipes pipes) { ExecWorker(*exe, argv, files, pipes, parent); });
}

absl::StatusOr<WorkerHandle> ForkWorker(
    const std::function<int(WorkerPipes)>& work) {
  FlushStreams();  // nothing buffered here is written again by the child
  const pid_t parent = getpid();
  return StartChild([&](WorkerPipes pipes) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    _exit(work(pipes));
  });
}

WorkerEnd WaitForWorker(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return {false,
              absl::StrCat("could not be waited for: ", std::strerror(errno))};
    }
  }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code == 0) return {true, "exit status 0"};
    // A worker under --pmubench_simulate reports its valgrind's end so.
    return {false, code > 128 ? absl::StrCat("exit status ", code,
                                             " (its process ended by signal ",
                                             code - 128, ", ",
                                             strsignal(code - 128), ")")
                              : absl::StrCat("exit status ", code)};
  }
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return {false,
          absl::StrCat("killed by signal ", sig, " (", strsignal(sig), ")")};
}

}  // namespace pmubench::internal
