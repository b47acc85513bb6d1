#include "framework/runner/plan/job_split.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

namespace pmubench::internal {

std::string_view FamilyOf(std::string_view name) {
  return name.substr(0, name.find('/'));
}

std::vector<Unit> WorkUnits(
    const std::vector<std::string>& instances,
    const std::function<bool(std::string_view)>& keep_whole) {
  std::vector<Unit> units;
  std::map<std::string, size_t, std::less<>> whole_unit;  // family -> unit
  std::set<std::string> seen;
  for (const std::string& name : instances) {
    if (!seen.insert(name).second) continue;
    const std::string_view family = FamilyOf(name);
    if (!keep_whole(family)) {
      units.push_back({name});
      continue;
    }
    auto [it, added] = whole_unit.emplace(family, units.size());
    if (added) units.emplace_back();
    units[it->second].push_back(name);
  }
  return units;
}

std::optional<double> UnitCost(const Unit& unit,
                               const std::map<std::string, double>& costs) {
  std::optional<double> sum;
  for (const std::string& name : unit) {
    if (auto it = costs.find(name); it != costs.end()) {
      sum = sum.value_or(0) + it->second;
    }
  }
  return sum;
}

std::vector<size_t> DispatchOrder(
    const std::vector<Unit>& units,
    const std::optional<std::map<std::string, double>>& costs) {
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), 0);
  if (!costs.has_value()) return order;
  std::vector<double> cost(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    // Unpriced units sort before every priced one.
    cost[u] = UnitCost(units[u], *costs)
                  .value_or(std::numeric_limits<double>::infinity());
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  return order;
}

}  // namespace pmubench::internal
