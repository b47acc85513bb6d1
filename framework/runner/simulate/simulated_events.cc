#include "framework/runner/simulate/simulated_events.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "framework/perf/events/near_names.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/runner/plan/event_set.h"

namespace pmubench::internal {
namespace {

using perf::AsAbsl;
using perf::AsStd;

// Name, callgrind columns summed. Order: the order of the JSON fields.
const std::vector<SimulatedEvent>& AllEvents() {
  static const auto* events = new std::vector<SimulatedEvent>{
      {"instructions", {"Ir"}},
      {"L1-dcache-loads", {"Dr"}},
      {"L1-dcache-stores", {"Dw"}},
      {"L1-dcache-load-misses", {"D1mr"}},
      {"L1-dcache-store-misses", {"D1mw"}},
      {"L1-icache-load-misses", {"I1mr"}},
      {"LLC-load-misses", {"DLmr"}},
      {"LLC-store-misses", {"DLmw"}},
      {"cache-misses", {"ILmr", "DLmr", "DLmw"}},
      {"branches", {"Bc", "Bi"}},
      {"branch-misses", {"Bcm", "Bim"}},
  };
  return *events;
}

bool HasColumns(const SimulatedEvent& event,
                const std::vector<std::string>& columns) {
  return std::all_of(
      event.columns.begin(), event.columns.end(), [&](const std::string& c) {
        return std::find(columns.begin(), columns.end(), c) != columns.end();
      });
}

std::vector<std::string> Names(const std::vector<SimulatedEvent>& events) {
  std::vector<std::string> names;
  for (const SimulatedEvent& e : events) names.push_back(e.name);
  return names;
}

std::string Unavailable(absl::string_view name,
                        const std::vector<SimulatedEvent>& available) {
  std::string why =
      absl::StrCat("--counters: '", name,
                   "' is not an event callgrind simulates in this "
                   "run (simulated: ",
                   absl::StrJoin(Names(available), ","), ")");
  const bool cache_event =
      std::any_of(AllEvents().begin(), AllEvents().end(),
                  [&](const SimulatedEvent& e) { return e.name == name; });
  if (cache_event) {
    absl::StrAppend(&why,
                    "; cache and branch events need "
                    "--pmubench_simulate=cache");
  } else if (std::vector<std::string> near =
                 perf::NearNames(AsStd(name), Names(AllEvents()));
             !near.empty()) {
    absl::StrAppend(&why, "; did you mean ", absl::StrJoin(near, ", "), "?");
  } else {
    absl::StrAppend(&why, "; cycles and times are not simulated");
  }
  return why;
}

}  // namespace

std::vector<SimulatedEvent> AvailableSimulatedEvents(
    const std::vector<std::string>& columns) {
  std::vector<SimulatedEvent> available;
  for (const SimulatedEvent& e : AllEvents()) {
    if (HasColumns(e, columns)) available.push_back(e);
  }
  return available;
}

absl::StatusOr<SimulatedEventSet> SelectSimulatedEvents(
    std::string_view counters, const std::vector<SimulatedEvent>& available) {
  SimulatedEventSet set;
  if (counters == kNoCounters) return set;
  if (counters.empty()) {
    set.events = available;
  } else {
    for (absl::string_view spec :
         absl::StrSplit(AsAbsl(counters), ',', absl::SkipWhitespace())) {
      absl::string_view name = absl::StripAsciiWhitespace(spec);
      if (absl::ConsumePrefix(&name, "callgrind/")) {
        absl::ConsumeSuffix(&name, "/");
      }
      auto it =
          std::find_if(available.begin(), available.end(),
                       [&](const SimulatedEvent& e) { return e.name == name; });
      if (it == available.end()) {
        return absl::InvalidArgumentError(Unavailable(name, available));
      }
      const bool listed =
          std::any_of(set.events.begin(), set.events.end(),
                      [&](const SimulatedEvent& e) { return e.name == name; });
      if (!listed) set.events.push_back(*it);
    }
  }
  for (const DerivedMetric& d : DeriveMetrics(Names(set.events))) {
    if (d.name == "IPC") continue;  // no cycles under simulation
    set.ratios.push_back({d.name, d.numerator, d.denominator});
  }
  return set;
}

uint64_t SimulatedValue(const SimulatedEvent& event,
                        const CallgrindDump& dump) {
  uint64_t sum = 0;
  for (const std::string& column : event.columns) {
    const int64_t total = dump.Total(column);
    if (total > 0) sum += static_cast<uint64_t>(total);
  }
  return sum;
}

}  // namespace pmubench::internal
