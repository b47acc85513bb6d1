// Flushes every stream of this process before fork(2): what is buffered
// then would otherwise be written by the parent and again by the child.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_FLUSH_BEFORE_FORK_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_FLUSH_BEFORE_FORK_H_

#include <cstdio>
#include <iostream>

namespace pmubench::internal {

inline void FlushBeforeFork() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_FLUSH_BEFORE_FORK_H_
