// --pmubench_allocations=on|off: whether each run counts heap allocations
// (docs/allocations.md). On by default.
//
//   absl::StatusOr<bool> on = ParseAllocationsFlag(value);
//   if (!on.ok()) ...   // exit 2 with on.status().message()
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_ALLOCATIONS_FLAG_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_ALLOCATIONS_FLAG_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace pmubench::internal {

// "on" or "off" (exactly); anything else is an error naming the flag, the
// value and what is valid.
absl::StatusOr<bool> ParseAllocationsFlag(std::string_view value);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_ALLOCATIONS_FLAG_H_
