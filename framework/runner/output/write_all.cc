#include "framework/runner/output/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace pmubench::internal {

int WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace pmubench::internal
