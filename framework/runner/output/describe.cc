#include "framework/runner/output/describe.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/runner/output/count_format.h"

namespace pmubench::internal {
namespace {

// The perf layer's reason for a read(2) fallback, where its OpenedEvent
// carries one (a member read_fallback_reason); "" otherwise.
template <class Opened>
std::string FallbackReason(const Opened& opened) {
  if constexpr (requires { opened.read_fallback_reason; }) {
    return std::string(opened.read_fallback_reason);
  } else {
    return "";
  }
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  return parts.empty() ? "none" : absl::StrJoin(parts, sep);
}

std::string FormatEvents(const RunFacts& facts) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const SetFacts& set : facts.sets) {
    for (const EventFacts& e : set.events) {
      if (!seen.insert(e.spec).second) continue;
      parts.push_back(absl::StrFormat(
          "%s (pmu=%s type=%u config=0x%x read=%s kernel=%s)", e.spec,
          e.pmu_name, e.type, e.config, perf::ReadMethodName(e.read_method),
          e.counts_kernel ? "yes" : "no"));
    }
  }
  return Join(parts, "; ");
}

std::string FormatOverhead(const RunFacts& facts) {
  std::vector<std::string> parts;
  for (const SetFacts& set : facts.sets) {
    std::vector<std::string> pairs;
    for (size_t i = 0; i < set.events.size(); ++i) {
      pairs.push_back(
          absl::StrFormat("%s=%g", set.events[i].spec, set.overhead[i]));
    }
    parts.push_back(absl::StrJoin(pairs, " "));
  }
  return Join(parts, "; ");
}

// How the events are read, in words: "read with read(2)", "read in user
// space (rdpmc)", or both with the events each way.
std::string ReadMethods(const RunFacts& facts) {
  std::vector<std::string> rdpmc;
  std::vector<std::string> syscall;
  std::set<std::string> seen;
  for (const SetFacts& set : facts.sets) {
    for (const EventFacts& e : set.events) {
      if (!seen.insert(e.spec).second) continue;
      (e.read_method == perf::ReadMethod::kRdpmc ? rdpmc : syscall)
          .push_back(e.spec);
    }
  }
  if (rdpmc.empty()) return "read with read(2)";
  if (syscall.empty()) return "read in user space (rdpmc)";
  return absl::StrCat("read in user space (rdpmc): ", absl::StrJoin(rdpmc, ","),
                      "; with read(2): ", absl::StrJoin(syscall, ","));
}

// The overhead with units, for the console: "cycles=120 task-clock=1.12us".
std::string FormatOverheadWithUnits(const RunFacts& facts) {
  std::vector<std::string> parts;
  for (const SetFacts& set : facts.sets) {
    std::vector<std::string> pairs;
    for (size_t i = 0; i < set.events.size(); ++i) {
      pairs.push_back(absl::StrCat(
          set.events[i].spec, "=",
          FormatCounter(set.overhead[i], UnitOf(set.events[i].spec))));
    }
    parts.push_back(absl::StrJoin(pairs, " "));
  }
  return Join(parts, " | ");
}

}  // namespace

std::string SetFacts::SpecList() const {
  return absl::StrJoin(events, ",", [](std::string* out, const EventFacts& e) {
    out->append(e.spec);
  });
}

SetFacts DescribeSet(const EventSet& set, const SetProbe& probe) {
  SetFacts facts;
  for (int i = 0; i < set.size(); ++i) {
    EventFacts e;
    e.spec = set.events[i].spec;
    e.pmu_name = set.events[i].pmu_name;
    e.needs_hardware_pmu = set.events[i].needs_hardware_pmu;
    if (i < static_cast<int>(probe.opened.size())) {
      const perf::OpenedEvent& opened = probe.opened[i];
      e.type = opened.attr.type;
      e.config = opened.attr.config;
      e.read_method = opened.read_method;
      e.read_fallback_reason = FallbackReason(opened);
      e.counts_kernel = opened.attr.exclude_kernel == 0;
    }
    facts.events.push_back(std::move(e));
    facts.overhead.push_back(
        i < static_cast<int>(probe.overhead.size()) ? probe.overhead[i] : 0);
  }
  for (const DerivedMetric& d : set.derived) facts.derived.push_back(d.name);
  return facts;
}

std::vector<std::pair<std::string, std::string>> CaseFiles(
    const std::vector<CaseRequest>& cases) {
  std::vector<std::pair<std::string, std::string>> files;
  std::set<std::string> seen;
  for (const CaseRequest& c : cases) {
    std::string family = c.name.substr(0, c.name.find('/'));
    if (!seen.insert(family).second) continue;  // the first file wins
    std::string file = c.file.substr(c.file.find_last_of('/') + 1);
    file = file.substr(0, file.rfind('.'));
    files.emplace_back(std::move(family), std::move(file));
  }
  return files;
}

std::string ReadFallbackNotice(const RunFacts& facts) {
  for (const SetFacts& set : facts.sets) {
    for (const EventFacts& e : set.events) {
      if (!e.needs_hardware_pmu || e.read_method != perf::ReadMethod::kRead) {
        continue;
      }
      return absl::StrCat(
          "pmubench: hardware events (", e.spec,
          ", ...) are read with read(2), one syscall per snapshot, not in "
          "user space",
          e.read_fallback_reason.empty() ? "" : ": ", e.read_fallback_reason);
    }
  }
  return "";
}

std::string SimulatorResetText(const SimulationFacts& sim) {
  if (sim.geometry == "none") return "";
  return sim.predictors_reset ? "caches,branch_predictors" : "caches";
}

std::string SimulatorResetNotice(const SimulationFacts& sim) {
  if (sim.geometry == "none" || sim.predictors_reset) return "";
  return "pmubench: on this architecture the simulated branch predictors are "
         "not reset before each batch (only x86-64 and arm64 have the "
         "reset): a case's simulated branch misses follow the cases that "
         "ran before it; its instructions and cache misses do not";
}

std::string FreshHeapNotice(const SimulationFacts& sim) {
  if (sim.fresh_heap) return "";
  return "pmubench: built without the fresh heap per batch (no glibc, or "
         "PMUBENCH_NO_FRESH_HEAP): the counts of code that allocates may "
         "follow the cases that ran before it and the process's path and "
         "environment";
}

namespace {

std::vector<std::pair<std::string, std::string>> SimulationPairs(
    const SimulationFacts& sim) {
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"pmubench_version", kVersion},
      {"pmubench_backend", "callgrind"},
      {"pmubench_valgrind", sim.valgrind},
      {"pmubench_cache_geometry", sim.geometry},
      {"pmubench_events", Join(sim.fields, ",")},
      {"pmubench_simulated_iterations", absl::StrCat(sim.iterations)},
      {"pmubench_fresh_heap", sim.fresh_heap ? "on" : "off"},
  };
  if (const std::string reset = SimulatorResetText(sim); !reset.empty()) {
    pairs.emplace_back("pmubench_simulator_reset", reset);
  }
  return pairs;
}

std::string SimulationHeader(const SimulationFacts& sim) {
  return absl::StrCat(
      "pmubench ", kVersion, ": counts per iteration SIMULATED by callgrind (",
      sim.valgrind, "; ",
      sim.geometry == "none" ? "no cache simulation"
                             : absl::StrCat("caches ", sim.geometry),
      "), not hardware counts: ",
      sim.fields.empty() ? std::string("none") : Join(sim.fields, ","), "\n",
      "pmubench: a batch is one loop of a warm-up, then ", sim.iterations,
      " and ", 2 * sim.iterations,
      " steps, dumped apart; a count is their difference over ", sim.iterations,
      " (fixed costs cancel); times are valgrind's\n");
}

}  // namespace

// The split sets' groups: "{a,b} {c,d}", sets joined by "; "; "" when no
// set was split.
std::string FormatGroups(const RunFacts& facts) {
  std::vector<std::string> sets;
  for (const SetFacts& set : facts.sets) {
    if (set.groups.empty()) continue;
    sets.push_back(absl::StrJoin(
        set.groups, " ", [](std::string* out, const std::string& group) {
          absl::StrAppend(out, "{", group, "}");
        }));
  }
  return absl::StrJoin(sets, "; ");
}

std::vector<std::pair<std::string, std::string>> ContextPairs(
    const RunFacts& facts) {
  std::vector<std::string> files;
  for (const auto& [family, file] : facts.case_files) {
    files.push_back(absl::StrCat(family, "=", file));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  if (facts.simulation.has_value()) {
    pairs = SimulationPairs(*facts.simulation);
    pairs.emplace_back("pmubench_case_files", Join(files, ";"));
    if (!facts.notices.empty()) {
      pairs.emplace_back("pmubench_notice", absl::StrJoin(facts.notices, " "));
    }
    return pairs;
  }
  pairs = {
      {"pmubench_version", kVersion},
      {"pmubench_pmus", Join(facts.pmus, ",")},
      {"pmubench_events", FormatEvents(facts)},
      {"pmubench_pinned", facts.pinned ? "true" : "false"},
      {"pmubench_exclude_kernel", facts.exclude_kernel ? "true" : "false"},
      {"pmubench_read_overhead", FormatOverhead(facts)},
      {"pmubench_case_files", Join(files, ";")},
      {"pmubench_backend", "perf_event"},
  };
  if (std::string groups = FormatGroups(facts); !groups.empty()) {
    pairs.emplace_back("pmubench_groups", std::move(groups));
    // What the split costs: how often each batch runs (one run timed).
    std::vector<std::string> runs;
    for (const SetFacts& set : facts.sets) {
      if (set.groups.empty()) continue;
      runs.push_back(facts.pinned ? absl::StrCat(set.groups.size()) : "1");
    }
    pairs.emplace_back("pmubench_runs_per_batch", absl::StrJoin(runs, "; "));
  }
  if (!facts.notices.empty()) {
    pairs.emplace_back("pmubench_notice", absl::StrJoin(facts.notices, " "));
  }
  return pairs;
}

std::string ConsoleHeader(const RunFacts& facts) {
  std::string out;
  if (facts.simulation.has_value()) {
    out = SimulationHeader(*facts.simulation);
  } else if (facts.sets.empty()) {
    // Off by --counters=none, because no PMU case will run, or because no
    // event could be opened (the notices say why).
    absl::StrAppend(&out, "pmubench ", kVersion, ": counting off",
                    facts.notices.empty()
                        ? " (--counters=none, or no PMU_BENCHMARK case "
                          "matches the filter)"
                        : "",
                    "\n");
  } else {
    std::vector<std::string> lists;
    for (const SetFacts& set : facts.sets) lists.push_back(set.SpecList());
    absl::StrAppend(&out, "pmubench ", kVersion, ": counts per iteration of ",
                    absl::StrJoin(lists, " | "), " (", ReadMethods(facts),
                    "; on-PMU shown when < 100%)\n");
    absl::StrAppend(&out,
                    "pmubench: subtracted per batch (the counts of an empty "
                    "range-for batch through State): ",
                    FormatOverheadWithUnits(facts), "\n");
    if (std::string groups = FormatGroups(facts); groups.empty()) {
    } else if (facts.pinned) {
      absl::StrAppend(&out, "pmubench: split into groups that fit the PMU, ",
                      "which take turns (each batch runs once per group, ",
                      "the first run timed, the others not): ", groups, "\n");
    } else {
      absl::StrAppend(&out, "pmubench: multiplexed (--pmubench_multiplex): ",
                      "groups counted at once, rotated by the kernel, each ",
                      "scaled by its running fraction (estimates): ", groups,
                      "\n");
    }
  }
  for (const std::string& notice : facts.notices) {
    absl::StrAppend(&out, notice, "\n");
  }
  return out;
}

std::vector<std::string> CounterNames(const RunFacts& facts) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  };
  if (facts.simulation.has_value()) return facts.simulation->fields;
  for (const SetFacts& set : facts.sets) {
    for (const EventFacts& e : set.events) add(e.spec);
    for (const std::string& d : set.derived) add(d);
  }
  if (!facts.sets.empty()) names.push_back(kRunningFractionName);
  return names;
}

}  // namespace pmubench::internal
