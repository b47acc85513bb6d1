// write(2) of a whole buffer to a file descriptor, retried after a short
// write or EINTR: for output files and for the pipes to worker processes.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_WRITE_ALL_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_WRITE_ALL_H_

#include <string_view>

namespace pmubench::internal {

// Writes all of `content` to `fd`: 0, or the errno of the write that cannot
// continue (ENOSPC, EFBIG, EIO; EPIPE when a pipe's reader is gone; ENOSPC
// for a write that wrote nothing).
int WriteAll(int fd, std::string_view content);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_WRITE_ALL_H_
