// Debian's Abseil (20220623) is built with ABSL_OPTION_USE_STD_STRING_VIEW 0:
// absl::string_view is its own type and std::string_view does not convert to
// it. The public headers take std::string_view; .cc files convert with
// AsAbsl before calling absl::StrCat, StrSplit, SimpleAtoi and friends, and
// with AsStd to call back into those headers.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYSTEM_STRING_VIEW_BRIDGE_H_
#define PMUBENCH_FRAMEWORK_PERF_SYSTEM_STRING_VIEW_BRIDGE_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace pmubench::perf {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

inline std::string_view AsStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYSTEM_STRING_VIEW_BRIDGE_H_
