// "Did you mean" suggestions for unknown event names, PMUs and terms.
#ifndef PMUBENCH_FRAMEWORK_PERF_EVENTS_NEAR_NAMES_H_
#define PMUBENCH_FRAMEWORK_PERF_EVENTS_NEAR_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

namespace pmubench::perf {

// Case-insensitive Levenshtein distance (insert, delete, substitute: 1 each).
int EditDistance(std::string_view a, std::string_view b);

// Up to `limit` candidates closest to `word`, nearest first (ties in
// candidate order). A candidate qualifies when its distance is at most a
// third of the longer length (at least 2), or when one contains the other
// ("miss" suggests "cache-misses"). Empty when nothing is close.
std::vector<std::string> NearNames(std::string_view word,
                                   const std::vector<std::string>& candidates,
                                   size_t limit = 5);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_EVENTS_NEAR_NAMES_H_
