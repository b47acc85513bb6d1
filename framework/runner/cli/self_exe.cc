#include "framework/runner/cli/self_exe.h"

#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pmubench::internal {

absl::StatusOr<std::string> SelfExecutable() {
  std::error_code error;
  std::string exe =
      std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot resolve /proc/self/exe: ", error.message()));
  }
  return exe;
}

}  // namespace pmubench::internal
