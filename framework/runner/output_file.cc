#include "framework/runner/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace pmubench {

constexpr char kOutFlag[] = "--benchmark_out=";

OutputFileGuard::~OutputFileGuard() {
  if (active() && !committed_) ::unlink(temp_path_.c_str());
}

absl::Status OutputFileGuard::Redirect(int argc, char** argv) {
  int index = -1;
  for (int i = 1; i < argc; ++i) {
    // Google Benchmark uses the last occurrence; so do we.
    if (absl::StartsWith(argv[i], kOutFlag)) index = i;
  }
  if (index < 0) return absl::OkStatus();
  const std::string path = argv[index] + std::strlen(kOutFlag);
  if (path.empty()) return absl::OkStatus();
  const std::string temp = absl::StrCat(path, ".tmp.", ::getpid());
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    return absl::InvalidArgumentError(
        absl::StrCat("--benchmark_out=", path, ": cannot create '", temp,
                     "' beside it: ", std::strerror(error),
                     ". Check that the directory exists and is writable"));
  }
  ::close(fd);
  final_path_ = path;
  temp_path_ = temp;
  rewritten_arg_ = absl::StrCat(kOutFlag, temp);
  argv[index] = rewritten_arg_.data();
  return absl::OkStatus();
}

absl::Status OutputFileGuard::Commit() {
  if (!active() || committed_) return absl::OkStatus();
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const int error = errno;
    return absl::InternalError(
        absl::StrCat("--benchmark_out=", final_path_, ": rename from '",
                     temp_path_, "' failed: ", std::strerror(error)));
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace pmubench
