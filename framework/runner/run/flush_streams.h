// Writes out what every stream of this process holds: before fork(2),
// where it would otherwise be written by the parent and again by the child,
// and before _exit(2) or a fatal signal, which flush nothing.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_FLUSH_STREAMS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_FLUSH_STREAMS_H_

#include <cstdio>
#include <iostream>

namespace pmubench::internal {

inline void FlushStreams() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_FLUSH_STREAMS_H_
