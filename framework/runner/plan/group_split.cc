#include "framework/runner/plan/group_split.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace pmubench::internal {
namespace {

// The events that must share a group: the inputs of each derived metric,
// joined (an event in two metrics joins both pairs). Units in the order of
// their first event.
std::vector<std::vector<int>> Units(int size,
                                    const std::vector<DerivedMetric>& derived) {
  std::vector<int> root(size);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&root](int i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (const DerivedMetric& d : derived) {
    const int a = find(d.numerator);
    const int b = find(d.denominator);
    root[std::max(a, b)] = std::min(a, b);
  }
  std::vector<std::vector<int>> units;
  std::vector<int> unit_of_root(size, -1);
  for (int i = 0; i < size; ++i) {
    const int r = find(i);
    if (unit_of_root[r] < 0) {
      unit_of_root[r] = static_cast<int>(units.size());
      units.emplace_back();
    }
    units[unit_of_root[r]].push_back(i);
  }
  return units;
}

std::vector<int> Joined(const std::vector<int>& group,
                        const std::vector<int>& unit) {
  std::vector<int> joined = group;
  joined.insert(joined.end(), unit.begin(), unit.end());
  std::sort(joined.begin(), joined.end());
  return joined;
}

// Adds `unit` to the first group it fits in, or to a new group when it fits
// alone. False when it does not fit even alone.
bool PlaceFirstFit(const std::vector<int>& unit, FitsTest fits,
                   int max_group_size, std::vector<std::vector<int>>& groups) {
  for (std::vector<int>& group : groups) {
    if (static_cast<int>(group.size() + unit.size()) > max_group_size) continue;
    std::vector<int> joined = Joined(group, unit);
    if (fits(joined)) {
      group = std::move(joined);
      return true;
    }
  }
  if (static_cast<int>(unit.size()) > max_group_size || !fits(unit)) {
    return false;
  }
  groups.push_back(unit);
  return true;
}

}  // namespace

GroupSplit SplitToFit(int size, const std::vector<DerivedMetric>& derived,
                      FitsTest fits, int max_group_size) {
  GroupSplit split;
  for (const std::vector<int>& unit : Units(size, derived)) {
    if (PlaceFirstFit(unit, fits, max_group_size, split.groups)) continue;
    // A unit of more than one event that does not fit together: its
    // metrics cannot be derived; its events are placed one by one.
    for (const DerivedMetric& d : derived) {
      if (std::find(unit.begin(), unit.end(), d.numerator) != unit.end()) {
        split.underived.push_back(d.name);
      }
    }
    for (int event : unit) {
      if (!PlaceFirstFit({event}, fits, max_group_size, split.groups)) {
        return GroupSplit{{}, {}, event};
      }
    }
  }
  return split;
}

EventSet GroupOf(const EventSet& set, const std::vector<int>& indices) {
  std::vector<int> drop;
  for (int i = 0; i < set.size(); ++i) {
    if (std::find(indices.begin(), indices.end(), i) == indices.end()) {
      drop.push_back(i);
    }
  }
  return WithoutEvents(set, drop);
}

}  // namespace pmubench::internal
