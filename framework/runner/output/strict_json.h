// Strict JSON (RFC 8259) from Google Benchmark's JSON. Its JSONReporter
// writes a non-finite double as a bare NaN, -NaN, Infinity or -Infinity, and
// copies strings (case names, ->Name(), SetLabel, error messages) byte for
// byte, escaping only \b \f \n \r \t, '"' and '\': a control character or
// bytes that are not UTF-8 reach the file raw. Strict parsers (jq, Python's
// json, JavaScript's JSON.parse, Go's encoding/json) reject all of these.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_STRICT_JSON_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_STRICT_JSON_H_

#include <string>
#include <string_view>

namespace pmubench {

// `json` made strict:
//  - every bare non-finite number outside a string (NaN, nan, Infinity, inf,
//    with or without a sign) becomes null;
//  - inside a string, a raw control character (U+0000..U+001F) becomes its
//    \u00XX escape, and each maximal ill-formed UTF-8 subsequence becomes
//    \ufffd, the replacement character (as Unicode's "best practice for
//    U+FFFD substitution", chapter 3.9, and Python's errors="replace" do).
// Everything else, escapes and well-formed UTF-8 included, is unchanged.
std::string StrictJson(std::string_view json);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_STRICT_JSON_H_
