#include "framework/runner/run/unit_child.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "framework/runner/run/flush_streams.h"

namespace pmubench::internal {
namespace {

// The child's exit status when no benchmark matched (Google Benchmark has
// said why on the worker's stderr).
constexpr int kNoneRan = 3;

// The worker ends as its child did, so that the parent tells what happened
// to the unit as it would had the worker run it.
[[noreturn]] void EndAsChild(int status) {
  FlushStreams();
  if (WIFSIGNALED(status)) {
    ::signal(WTERMSIG(status), SIG_DFL);
    ::raise(WTERMSIG(status));
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace

size_t RunUnitInChild(benchmark::BenchmarkReporter* display) {
  FlushStreams();  // nothing buffered before the fork is written twice
  const pid_t child = ::fork();
  if (child < 0) return benchmark::RunSpecifiedBenchmarks(display);
  if (child == 0) {
    const size_t ran = benchmark::RunSpecifiedBenchmarks(display);
    FlushStreams();
    // No exit handlers nor static destructors: they are the worker's.
    ::_exit(ran == 0 ? kNoneRan : 0);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return 0;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoneRan) return 0;
  EndAsChild(status);
}

}  // namespace pmubench::internal
