#include "framework/perf/events/near_names.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench::perf {
namespace {

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  return absl::StrContains(absl::AsciiStrToLower(AsAbsl(haystack)),
                           absl::AsciiStrToLower(AsAbsl(needle)));
}

}  // namespace

int EditDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table at a time.
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int above = row[j];
      const bool same =
          absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> NearNames(std::string_view word,
                                   const std::vector<std::string>& candidates,
                                   size_t limit) {
  std::vector<std::pair<int, size_t>> scored;  // (distance, candidate index)
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& candidate = candidates[i];
    const int distance = EditDistance(word, candidate);
    const int allowed = std::max<int>(
        2, static_cast<int>(std::max(word.size(), candidate.size()) / 3));
    const bool contains =
        word.size() >= 3 && (ContainsIgnoreCase(candidate, word) ||
                             ContainsIgnoreCase(word, candidate));
    if (distance <= allowed || contains) scored.emplace_back(distance, i);
  }
  std::stable_sort(scored.begin(), scored.end());
  std::vector<std::string> names;
  for (const auto& [distance, index] : scored) {
    if (names.size() == limit) break;
    names.push_back(candidates[index]);
  }
  return names;
}

}  // namespace pmubench::perf
