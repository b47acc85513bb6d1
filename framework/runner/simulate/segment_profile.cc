#include "framework/runner/simulate/segment_profile.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace pmubench::internal {

SegmentProfile SubtractSegments(
    const std::vector<CallgrindDump::SelfCost>& longer,
    const std::vector<CallgrindDump::SelfCost>& shorter, int64_t iterations,
    int64_t pause_cost) {
  std::map<std::tuple<std::string, std::string, int>, int64_t> deltas;
  for (const CallgrindDump::SelfCost& c : longer) {
    deltas[{c.function, c.file, c.line}] += static_cast<int64_t>(c.cost);
  }
  for (const CallgrindDump::SelfCost& c : shorter) {
    deltas[{c.function, c.file, c.line}] -= static_cast<int64_t>(c.cost);
  }
  if (pause_cost != 0) deltas[{kPausePairsSymbol, "", 0}] -= pause_cost;
  SegmentProfile profile;
  profile.iterations = std::max<int64_t>(1, iterations);
  for (const auto& [key, delta] : deltas) {
    if (delta == 0) continue;
    const auto& [function, file, line] = key;
    profile.costs.push_back({function, file, line, delta});
    profile.total += delta;
  }
  // std::map's order breaks ties: function, file, line.
  std::stable_sort(profile.costs.begin(), profile.costs.end(),
                   [](const SegmentDelta& a, const SegmentDelta& b) {
                     return std::llabs(a.delta) > std::llabs(b.delta);
                   });
  return profile;
}

}  // namespace pmubench::internal
