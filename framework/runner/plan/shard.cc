#include "framework/runner/plan/shard.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pmubench::internal {
namespace {

// A whole number from `text`, or -1.
int WholeNumber(std::string_view text) {
  int value = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return -1;
  return value;
}

// Per unit, its shard (0-based): longest first to the cheapest shard, then
// the unpriced ones to the shard with the fewest instances.
std::vector<int> Balance(const std::vector<Unit>& units, int count,
                         const std::map<std::string, double>& costs,
                         int& uncosted) {
  std::vector<double> cost(units.size());
  uncosted = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    cost[u] = UnitCost(units[u], costs).value_or(-1.0);
    for (const std::string& name : units[u]) {
      uncosted += costs.count(name) > 0 ? 0 : 1;
    }
  }
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable: equal costs keep registration order.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(count, 0);
  std::vector<size_t> members(count, 0);
  std::vector<int> shard_of(units.size(), 0);
  for (size_t u : order) {
    const bool costed = cost[u] >= 0;
    int best = 0;
    for (int s = 1; s < count; ++s) {
      const bool better =
          costed ? load[s] < load[best] : members[s] < members[best];
      if (better) best = s;
    }
    shard_of[u] = best;
    load[best] += costed ? cost[u] : 0;
    members[best] += units[u].size();
  }
  return shard_of;
}

}  // namespace

absl::StatusOr<Shard> ParseShard(std::string_view text) {
  const size_t slash = text.find('/');
  Shard shard;
  if (slash != std::string_view::npos) {
    shard.index = WholeNumber(text.substr(0, slash));
    shard.count = WholeNumber(text.substr(slash + 1));
  }
  if (slash == std::string_view::npos || shard.index < 1 || shard.count < 1 ||
      shard.index > shard.count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--pmubench_shard=", std::string(text),
        ": give I/N, this job's shard I of N shards with 1 <= I <= N "
        "(e.g. --pmubench_shard=1/3, 2/3 and 3/3 in three jobs)"));
  }
  return shard;
}

ShardSelection SelectShard(
    const std::vector<Unit>& units, Shard shard,
    const std::optional<std::map<std::string, double>>& costs) {
  ShardSelection selection;
  std::vector<int> shard_of(units.size());
  if (costs.has_value()) {
    shard_of = Balance(units, shard.count, *costs, selection.uncosted);
  } else {
    for (size_t u = 0; u < units.size(); ++u) {
      shard_of[u] = static_cast<int>(u % shard.count);
    }
  }
  for (size_t u = 0; u < units.size(); ++u) {
    if (shard_of[u] != shard.index - 1) continue;
    selection.names.insert(selection.names.end(), units[u].begin(),
                           units[u].end());
  }
  return selection;
}

std::string ExactNamesFilter(const std::vector<std::string>& names) {
  std::string filter = "^(";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) filter += '|';
    for (char c : names[i]) {
      if (std::string_view(".[]{}()\\*+?^$|").find(c) !=
          std::string_view::npos) {
        filter += '\\';
      }
      filter += c;
    }
  }
  return filter + ")$";
}

}  // namespace pmubench::internal
