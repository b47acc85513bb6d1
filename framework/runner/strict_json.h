// Strict JSON (RFC 8259) from Google Benchmark's JSON: its JSONReporter
// writes a non-finite double as a bare NaN, -NaN, Infinity or -Infinity,
// which strict parsers (jq, JavaScript's JSON.parse, Go's encoding/json)
// reject.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_STRICT_JSON_H_
#define PMUBENCH_FRAMEWORK_RUNNER_STRICT_JSON_H_

#include <string>
#include <string_view>

namespace pmubench {

// `json` with every bare non-finite number outside a string (NaN, nan,
// Infinity, inf, with or without a sign) replaced by null. Strings are
// copied unchanged, escapes included.
std::string NullForNonFinite(std::string_view json);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_STRICT_JSON_H_
