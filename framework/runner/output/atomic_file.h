// A file that appears whole under its name, or not at all.
//
// Open() creates an unnamed file in the target's directory (O_TMPFILE,
// open(2)); Commit() writes the content with every write(2), fsync(2) and
// close(2) checked, then gives the file its name with linkat(2) through
// /proc/self/fd (AT_SYMLINK_FOLLOW; see O_TMPFILE in open(2)), or through a
// temporary name and rename(2) when the target exists. A process that dies
// at any point leaves nothing behind, even on SIGKILL: an unnamed file is
// freed with its last descriptor.
//
// Where the file system has no O_TMPFILE (it fails with EOPNOTSUPP or
// EISDIR), Commit() writes a named temporary file beside the target with
// SIGINT, SIGTERM, SIGQUIT and SIGHUP blocked, removes it on any error, and
// renames it into place; only SIGKILL (or another signal that cannot be
// blocked) during that window can leave it.
//
// A named temporary is "<target>.pmubench-tmp-<pid>", created with O_EXCL
// and held under flock(2) until it is renamed. Commit() first removes the
// temporaries that killed writers left in the target's directory, and only
// those provably stale: a regular file of that name pattern, owned by this
// user, whose process is gone (kill(pid, 0) fails with ESRCH) and whose
// lock nobody holds (which also covers a writer in another PID namespace or
// on another NFS client).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_ATOMIC_FILE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_ATOMIC_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace pmubench {

class AtomicFile {
 public:
  // kNamedTemporary is the fallback for file systems without O_TMPFILE;
  // asking for it directly is for tests.
  enum class Method { kUnnamed, kNamedTemporary };

  explicit AtomicFile(Method method = Method::kUnnamed) : method_(method) {}
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Checks that `path` can be written (its directory exists and is writable,
  // it is not a directory) and holds an unnamed file for it where possible.
  // Errors name the path and the problem.
  absl::Status Open(const std::string& path);

  // Writes `content` and gives it the name passed to Open(), replacing any
  // file of that name. On error nothing new is left under any name.
  absl::Status Commit(std::string_view content);

  const std::string& path() const { return path_; }

  // The named temporary a process `pid` writes for `path`.
  static std::string TemporaryName(const std::string& path, pid_t pid);

 private:
  absl::Status LinkUnnamed();
  absl::Status CommitNamed(std::string_view content);

  Method method_;
  std::string path_;
  int unnamed_fd_ = -1;  // O_TMPFILE descriptor, or -1 for the named fallback
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_ATOMIC_FILE_H_
