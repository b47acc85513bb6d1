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

// Per instance, its shard (0-based): longest first to the cheapest shard,
// then the uncosted ones to the shard with the fewest instances.
std::vector<int> Balance(const std::vector<std::string>& instances, int count,
                         const std::map<std::string, double>& costs,
                         int& uncosted) {
  std::vector<int> order(instances.size());
  std::iota(order.begin(), order.end(), 0);
  auto cost_of = [&](int i) {
    auto it = costs.find(instances[i]);
    return it == costs.end() ? -1.0 : it->second;
  };
  // Stable: equal costs keep registration order.
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cost_of(a) > cost_of(b); });
  std::vector<double> load(count, 0);
  std::vector<int> members(count, 0);
  std::vector<int> shard_of(instances.size(), 0);
  uncosted = 0;
  for (int i : order) {
    const bool costed = cost_of(i) >= 0;
    uncosted += costed ? 0 : 1;
    int best = 0;
    for (int s = 1; s < count; ++s) {
      const bool better =
          costed ? load[s] < load[best] : members[s] < members[best];
      if (better) best = s;
    }
    shard_of[i] = best;
    load[best] += costed ? cost_of(i) : 0;
    ++members[best];
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
    const std::vector<std::string>& instances, Shard shard,
    const std::optional<std::map<std::string, double>>& costs) {
  // Two registrations can give one name, and a filter of names selects
  // both: a name is placed once, where it first appears.
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& name : instances) {
    if (seen.insert(name).second) unique.push_back(name);
  }
  ShardSelection selection;
  std::vector<int> shard_of(unique.size());
  if (costs.has_value()) {
    shard_of = Balance(unique, shard.count, *costs, selection.uncosted);
  } else {
    for (size_t i = 0; i < unique.size(); ++i) {
      shard_of[i] = static_cast<int>(i % shard.count);
    }
  }
  for (size_t i = 0; i < unique.size(); ++i) {
    if (shard_of[i] == shard.index - 1) selection.names.push_back(unique[i]);
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
