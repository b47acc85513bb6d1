#include "framework/runner/output/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/runner/output/write_all.h"

namespace pmubench {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status ErrnoError(const std::string& path, std::string_view what,
                        int error) {
  return absl::InternalError(absl::StrCat(path, ": ", perf::AsAbsl(what),
                                          " failed: ", std::strerror(error)));
}

// Blocks the signals that would otherwise end the process while a file has
// a temporary name; they are delivered when this goes out of scope.
class TerminationSignalsBlocked {
 public:
  TerminationSignalsBlocked() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP}) sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &previous_);
  }
  ~TerminationSignalsBlocked() {
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t previous_;
};

constexpr std::string_view kTemporaryMarker = ".pmubench-tmp-";

// The pid in a named temporary's file name ("<name>.pmubench-tmp-<pid>"),
// or 0 when the name is not one.
pid_t TemporaryPid(std::string_view name) {
  const size_t at = name.rfind(kTemporaryMarker);
  if (at == std::string_view::npos || at == 0) return 0;
  const std::string_view digits = name.substr(at + kTemporaryMarker.size());
  if (digits.empty() || digits.size() > 10) return 0;
  long long pid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid > INT_MAX ? 0 : static_cast<pid_t>(pid);
}

// Removes `name` from the directory `dir_fd` if it is a named temporary that
// a killed writer left: a regular file of this user, its process gone, its
// lock not held. Anything that cannot be proven stale is kept.
void RemoveIfStale(int dir_fd, const char* name) {
  const pid_t pid = TemporaryPid(name);
  if (pid <= 0 || pid == ::getpid()) return;
  if (::kill(pid, 0) == 0 || errno != ESRCH) return;  // alive, or unknown
  // Open for writing where possible: NFS emulates flock(2) with POSIX
  // locks, and an exclusive one needs a descriptor open for writing.
  const int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  int fd = ::openat(dir_fd, name, O_RDWR | flags);
  if (fd < 0) fd = ::openat(dir_fd, name, O_RDONLY | flags);
  if (fd < 0) return;
  struct stat opened, named;
  const bool ours = ::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) &&
                    opened.st_uid == ::geteuid();
  // A writer holds its lock until the rename (a file system without locks
  // fails with another errno: the pid alone decides there).
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  if (ours && !held &&
      ::fstatat(dir_fd, name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      named.st_dev == opened.st_dev && named.st_ino == opened.st_ino) {
    ::unlinkat(dir_fd, name, 0);
  }
  ::close(fd);
}

// The named temporaries of killed writers in `dir` (RemoveIfStale).
void RemoveStaleTemporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* entry = ::readdir(d)) {
    RemoveIfStale(::dirfd(d), entry->d_name);
  }
  ::closedir(d);
}

// Creates the named temporary `temp` for this process alone (O_EXCL: never
// through a symlink or into another's file), locked until it is closed. A
// file already of that name was left by an earlier process of this pid.
int CreateTemporary(const std::string& temp) {
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(temp.c_str(), flags, 0666);
  if (fd < 0 && errno == EEXIST) {
    ::unlink(temp.c_str());
    fd = ::open(temp.c_str(), flags, 0666);
  }
  if (fd >= 0) ::flock(fd, LOCK_EX);  // best effort: see RemoveIfStale
  return fd;
}

void SyncDirectory(const std::string& dir) {
  // Makes the new name durable; some file systems refuse fsync on a
  // directory (EINVAL), which does not make the file less whole.
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string AtomicFile::TemporaryName(const std::string& path, pid_t pid) {
  return absl::StrCat(path, perf::AsAbsl(kTemporaryMarker), pid);
}

AtomicFile::~AtomicFile() {
  if (unnamed_fd_ >= 0) ::close(unnamed_fd_);
}

absl::Status AtomicFile::Open(const std::string& path) {
  path_ = path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory; name a file in it instead"));
  }
  const std::string dir = DirectoryOf(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": directory '", dir, "' does not exist; create it first"));
  }
  // Mode 0666 less the umask, as std::ofstream would create it.
  if (method_ == Method::kUnnamed) {
    unnamed_fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  }
  const int error = method_ == Method::kUnnamed ? errno : EOPNOTSUPP;
  if (unnamed_fd_ >= 0 && ::access("/proc/self/fd", X_OK) == 0) {
    return absl::OkStatus();
  }
  if (unnamed_fd_ >= 0) {
    ::close(unnamed_fd_);  // no /proc to link it through: use a named file
    unnamed_fd_ = -1;
  } else if (error != EOPNOTSUPP && error != EISDIR && error != EINVAL) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot create a file in '", dir, "': ", std::strerror(error),
        ". Check that the directory is writable"));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": directory '", dir,
                     "' is not writable: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit(std::string_view content) {
  RemoveStaleTemporaries(DirectoryOf(path_));
  if (unnamed_fd_ < 0) return CommitNamed(content);
  if (const int error = internal::WriteAll(unnamed_fd_, content); error != 0) {
    return ErrnoError(path_, "write", error);
  }
  if (::fsync(unnamed_fd_) != 0) return ErrnoError(path_, "fsync", errno);
  absl::Status linked = LinkUnnamed();
  const int fd = unnamed_fd_;
  unnamed_fd_ = -1;
  if (::close(fd) != 0 && linked.ok()) {
    const int error = errno;
    ::unlink(path_.c_str());
    return ErrnoError(path_, "close", error);
  }
  if (linked.ok()) SyncDirectory(DirectoryOf(path_));
  return linked;
}

absl::Status AtomicFile::LinkUnnamed() {
  const std::string proc = absl::StrCat("/proc/self/fd/", unnamed_fd_);
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path_.c_str(),
               AT_SYMLINK_FOLLOW) == 0) {
    return absl::OkStatus();
  }
  if (errno != EEXIST) return ErrnoError(path_, "linkat", errno);
  // The target exists: link under a temporary name, then rename(2) over it.
  // The lock taken on the open file holds for that name too.
  const std::string temp = TemporaryName(path_, ::getpid());
  TerminationSignalsBlocked blocked;
  ::flock(unnamed_fd_, LOCK_EX);
  ::unlink(temp.c_str());  // a leftover of an earlier process of this pid
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, temp.c_str(),
               AT_SYMLINK_FOLLOW) != 0) {
    return ErrnoError(temp, "linkat", errno);
  }
  if (::rename(temp.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return ErrnoError(path_, absl::StrCat("rename from '", temp, "'"), error);
  }
  return absl::OkStatus();
}

absl::Status AtomicFile::CommitNamed(std::string_view content) {
  const std::string temp = TemporaryName(path_, ::getpid());
  TerminationSignalsBlocked blocked;
  const int fd = CreateTemporary(temp);
  if (fd < 0) return ErrnoError(temp, "open", errno);
  int error = internal::WriteAll(fd, content);
  std::string_view failed = "write";
  if (error == 0 && ::fsync(fd) != 0) {
    error = errno;
    failed = "fsync";
  }
  // Renamed while still open: the lock holds until the name is gone.
  if (error == 0 && ::rename(temp.c_str(), path_.c_str()) != 0) {
    error = errno;
    failed = "rename";
  }
  const bool renamed = error == 0;
  if (::close(fd) != 0 && error == 0) {
    error = errno;
    failed = "close";
  }
  if (error != 0) {
    ::unlink(renamed ? path_.c_str() : temp.c_str());
    return ErrnoError(path_, failed, error);
  }
  SyncDirectory(DirectoryOf(path_));
  return absl::OkStatus();
}

}  // namespace pmubench
