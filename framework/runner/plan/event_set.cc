#include "framework/runner/plan/event_set.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench::internal {
namespace {

using perf::AsAbsl;

// Splits "cycles:u" into {"cycles", ":u"}; only the :u/:k/:uk modifiers the
// parser accepts count as a suffix (vendor event names such as
// "INST_RETIRED:ANY_P" keep their colon).
std::pair<absl::string_view, absl::string_view> SplitModifier(
    absl::string_view spec) {
  const size_t colon = spec.rfind(':');
  if (colon == absl::string_view::npos || colon + 1 == spec.size()) {
    return {spec, {}};
  }
  const absl::string_view suffix = spec.substr(colon + 1);
  for (char c : suffix) {
    if (c != 'u' && c != 'k') return {spec, {}};
  }
  return {spec.substr(0, colon), spec.substr(colon)};
}

std::optional<int> Find(const std::vector<std::string>& names,
                        absl::string_view wanted) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == wanted) return static_cast<int>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string EventSet::SpecList() const {
  return absl::StrJoin(events, ",",
                       [](std::string* out, const perf::ResolvedEvent& e) {
                         out->append(e.spec);
                       });
}

std::vector<DerivedMetric> DeriveMetrics(
    const std::vector<std::string>& names) {
  std::vector<DerivedMetric> derived;
  auto add = [&](std::string name, absl::string_view numerator,
                 absl::string_view denominator) {
    std::optional<int> num = Find(names, numerator);
    std::optional<int> den = Find(names, denominator);
    if (!num || !den) return;
    for (const DerivedMetric& d : derived) {
      if (d.name == name) return;
    }
    derived.push_back(DerivedMetric{std::move(name), *num, *den});
  };
  for (const std::string& spec : names) {
    const auto [base, modifier] = SplitModifier(spec);
    const std::string mod(modifier);
    if (base == "instructions") {
      add(absl::StrCat("IPC", mod), spec, absl::StrCat("cycles", mod));
    } else if (base == "branch-misses") {
      add(absl::StrCat("branch-miss-ratio", mod), spec,
          absl::StrCat("branches", mod));
    } else if (base == "cache-misses") {
      add(absl::StrCat("cache-miss-ratio", mod), spec,
          absl::StrCat("cache-references", mod));
    } else if (absl::EndsWith(base, "-misses")) {
      // Hardware cache events: <X>-misses / the plural of <X>, e.g.
      // L1-dcache-load-misses / L1-dcache-loads and
      // L1-dcache-prefetch-misses / L1-dcache-prefetches (the names of
      // perf list hwcache).
      const absl::string_view stem = base.substr(0, base.size() - 7);
      add(absl::StrCat(stem, "-miss-ratio", mod), spec,
          absl::StrCat(stem, absl::EndsWith(stem, "h") ? "es" : "s", mod));
    }
  }
  return derived;
}

namespace {

EventSet FromEvents(std::vector<perf::ResolvedEvent> events,
                    const perf::GroupOptions& options) {
  EventSet set;
  set.events = std::move(events);
  set.options = options;
  std::vector<std::string> names;
  for (const perf::ResolvedEvent& e : set.events) names.push_back(e.spec);
  set.derived = DeriveMetrics(names);
  set.key = absl::StrCat(set.SpecList(), "|pinned=", options.pinned,
                         "|exclude_kernel=", options.exclude_kernel,
                         "|exclude_hv=", options.exclude_hv,
                         "|rdpmc=", options.use_rdpmc);
  return set;
}

}  // namespace

EventSet WithoutEvents(const EventSet& set, const std::vector<int>& drop) {
  std::vector<perf::ResolvedEvent> kept;
  for (int i = 0; i < set.size(); ++i) {
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) {
      kept.push_back(set.events[i]);
    }
  }
  EventSet without = FromEvents(std::move(kept), set.options);
  without.cpus = set.cpus;
  return without;
}

absl::StatusOr<EventSet> MakeEventSet(std::string_view specs,
                                      const perf::PmuRegistry& pmus,
                                      const perf::GroupOptions& options) {
  absl::StatusOr<std::vector<perf::ResolvedEvent>> events =
      perf::ResolveEventList(specs, pmus);
  if (!events.ok()) return events.status();
  if (events->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "empty event list '", AsAbsl(specs),
        "': name events as perf stat -e does (e.g. task-clock,page-faults), "
        "or 'none' to turn counting off"));
  }
  if (static_cast<int>(events->size()) > kMaxSetEvents) {
    return absl::InvalidArgumentError(
        absl::StrCat("event list '", AsAbsl(specs), "' has ", events->size(),
                     " events; a set holds at most ", kMaxSetEvents,
                     " (split into groups that take turns): drop some"));
  }
  // perf::ResolveEventList has rejected duplicates: each spec is one field.
  return FromEvents(*std::move(events), options);
}

}  // namespace pmubench::internal
