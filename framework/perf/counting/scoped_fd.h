// ScopedFd: owns one file descriptor and closes it when destroyed (RAII,
// movable, not copyable); -1 means "owns none".
//
//   ScopedFd fd(open(path, O_RDONLY | O_CLOEXEC));
//   if (!fd.valid()) return ...;
//   read(fd.get(), buf, n);
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_SCOPED_FD_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_SCOPED_FD_H_

#include <unistd.h>

#include <utility>

namespace pmubench::perf {

class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Closes the descriptor now (if any); the object then owns none.
  void Reset() noexcept {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_SCOPED_FD_H_
