#include "framework/runner/cli/allocations_flag.h"

#include "absl/strings/str_cat.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench::internal {

absl::StatusOr<bool> ParseAllocationsFlag(std::string_view value) {
  if (value == "on") return true;
  if (value == "off") return false;
  return absl::InvalidArgumentError(absl::StrCat(
      "--pmubench_allocations=", perf::AsAbsl(value),
      ": give on (count heap allocations per iteration, the default) or off"));
}

}  // namespace pmubench::internal
