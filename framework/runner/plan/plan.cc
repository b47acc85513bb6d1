#include "framework/runner/plan/plan.h"

#include <regex.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "framework/runner/plan/group_split.h"

namespace pmubench::internal {
namespace {

absl::Status WithOrigin(const absl::Status& status, absl::string_view origin) {
  return absl::Status(status.code(),
                      absl::StrCat(origin, ": ", status.message()));
}

const perf::ResolvedEvent* FirstNeedingHardware(const EventSet& set) {
  for (const perf::ResolvedEvent& e : set.events) {
    if (e.needs_hardware_pmu) return &e;
  }
  return nullptr;
}

std::string NoPmuReason(const perf::PmuRegistry& pmus) {
  return absl::StrCat("this machine exposes no hardware PMU (", pmus.root(),
                      "/cpu is missing: a VM without a virtual PMU?)");
}

// "BM_A, BM_B, BM_C, ..." (at most three names).
std::string SomeNames(const std::vector<std::string>& names) {
  std::vector<std::string> shown(
      names.begin(), names.begin() + std::min<size_t>(3, names.size()));
  return absl::StrCat(absl::StrJoin(shown, ", "),
                      names.size() > 3 ? ", ..." : "");
}

// Builds the plan's sets, sharing one PlannedSet between cases whose lists
// resolve to the same key.
class PlanBuilder {
 public:
  PlanBuilder(size_t case_count, const RunOptions& options,
              const perf::PmuRegistry& pmus)
      : pmus_(pmus) {
    group_options_.use_rdpmc = options.use_rdpmc;
    group_options_.pinned = !options.multiplex;
    plan_.case_set.assign(case_count, kNoSet);
  }

  // Resolves `specs` into a set of the plan (or the existing one with the
  // same key) and returns its index.
  absl::StatusOr<int> Add(std::string_view specs, std::string origin) {
    absl::StatusOr<EventSet> set = MakeEventSet(specs, pmus_, group_options_);
    if (!set.ok()) return WithOrigin(set.status(), origin);
    for (size_t i = 0; i < plan_.sets.size(); ++i) {
      if (plan_.sets[i].set.key == set->key) return static_cast<int>(i);
    }
    PlannedSet planned;
    planned.set = *std::move(set);
    planned.origin = std::move(origin);
    plan_.sets.push_back(std::move(planned));
    return static_cast<int>(plan_.sets.size()) - 1;
  }

  void Assign(size_t case_index, int set_index) {
    plan_.case_set[case_index] = set_index;
  }
  PlannedSet& set(int index) { return plan_.sets[index]; }
  Plan& plan() { return plan_; }

 private:
  const perf::PmuRegistry& pmus_;
  perf::GroupOptions group_options_;
  Plan plan_;
};

absl::Status PlanExplicit(PlanBuilder& builder, const std::string& counters,
                          size_t case_count, const perf::PmuRegistry& pmus) {
  const std::string origin = absl::StrCat("--counters=", counters);
  absl::StatusOr<int> index = builder.Add(counters, origin);
  if (!index.ok()) return index.status();
  PlannedSet& set = builder.set(*index);
  set.is_explicit = true;
  if (const perf::ResolvedEvent* e = FirstNeedingHardware(set.set);
      e != nullptr && !pmus.HasHardwarePmu()) {
    return absl::NotFoundError(absl::StrCat(
        origin, ": '", e->spec, "' needs a hardware PMU, but ",
        NoPmuReason(pmus), ". Count software events instead (e.g. --counters=",
        kSoftwareDefaultEvents,
        " or msr/tsc/), or run on a machine with a PMU"));
  }
  for (size_t i = 0; i < case_count; ++i) builder.Assign(i, *index);
  return absl::OkStatus();
}

// The default set and each case's own list; on a machine without a hardware
// PMU, those that need one become the software default, with one notice.
absl::Status PlanPerCase(PlanBuilder& builder,
                         const std::vector<CaseRequest>& cases,
                         const perf::PmuRegistry& pmus,
                         const std::string& filter) {
  const bool has_hardware = pmus.HasHardwarePmu();
  absl::StatusOr<int> fallback = builder.Add(
      has_hardware ? kHardwareDefaultEvents : kSoftwareDefaultEvents,
      "the default events");
  if (!fallback.ok()) return fallback.status();
  builder.set(*fallback).is_default = has_hardware;
  bool default_used = false;
  std::vector<std::string> fallen;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string own(absl::StripAsciiWhitespace(cases[i].counters));
    const bool may_run = MayRun(cases[i].name, filter);
    if (own.empty()) {
      builder.Assign(i, *fallback);
      default_used = default_used || may_run;
      continue;
    }
    if (own == kNoCounters) continue;  // the case turned counting off
    absl::StatusOr<int> index = builder.Add(
        own, absl::StrCat("PMU_BENCHMARK_WITH_COUNTERS(", cases[i].name, ", \"",
                          cases[i].counters, "\")"));
    if (!index.ok()) return index.status();
    if (!has_hardware && FirstNeedingHardware(builder.set(*index).set)) {
      builder.Assign(i, *fallback);
      if (may_run) fallen.push_back(cases[i].name);
    } else {
      builder.Assign(i, *index);
    }
  }
  if (has_hardware || (!default_used && fallen.empty()))
    return absl::OkStatus();
  std::string replaced =
      default_used ? absl::StrCat("the default ", kHardwareDefaultEvents) : "";
  if (!fallen.empty()) {
    absl::StrAppend(&replaced, replaced.empty() ? "" : " and ",
                    "the hardware events of ", fallen.size(),
                    fallen.size() == 1 ? " case (" : " cases (",
                    SomeNames(fallen), ")");
  }
  builder.plan().notices.push_back(
      absl::StrCat("pmubench: ", NoPmuReason(pmus), "; counting ",
                   kSoftwareDefaultEvents, " instead of ", replaced));
  return absl::OkStatus();
}

// Hybrid machines: events of the core PMU count only while the thread runs
// on that PMU's CPUs, so the measuring thread is pinned there.
void PlanPinning(Plan& plan, const perf::PmuRegistry& pmus) {
  if (!pmus.IsHybrid() || pmus.CorePmu() == nullptr) return;
  bool needs_core = false;
  for (const PlannedSet& s : plan.sets) {
    needs_core = needs_core || FirstNeedingHardware(s.set) != nullptr;
  }
  if (!needs_core) return;
  absl::StatusOr<std::vector<int>> cpus = pmus.CpuList(pmus.CorePmu()->name);
  if (!cpus.ok() || cpus->empty()) {
    plan.notices.push_back(absl::StrCat(
        "pmubench: hybrid CPU, but the CPUs of ", pmus.CorePmu()->name,
        " are unknown (", cpus.status().message(),
        "); the thread is not pinned, so counts may be partly uncounted: "
        "see pmu_running_fraction"));
    return;
  }
  plan.pinned_pmu = pmus.CorePmu()->name;
  plan.pinned_cpus = *std::move(cpus);
  for (PlannedSet& s : plan.sets) {
    if (FirstNeedingHardware(s.set) != nullptr) s.set.cpus = plan.pinned_cpus;
  }
  plan.notices.push_back(absl::StrCat(
      "pmubench: hybrid CPU: measuring threads are pinned to the CPUs of ",
      plan.pinned_pmu, " (", absl::StrJoin(plan.pinned_cpus, ","),
      "), where its events count"));
}

}  // namespace

absl::StatusOr<Plan> MakePlan(const std::vector<CaseRequest>& cases,
                              const RunOptions& options,
                              const perf::PmuRegistry& pmus) {
  PlanBuilder builder(cases.size(), options, pmus);
  const std::string counters(absl::StripAsciiWhitespace(options.counters));
  const std::string filter = options.filter.value_or("");
  absl::Status planned = absl::OkStatus();
  if (counters == kNoCounters) {
    // Counting off: every case keeps kNoSet.
  } else if (!counters.empty()) {
    planned = PlanExplicit(builder, counters, cases.size(), pmus);
  } else {
    planned = PlanPerCase(builder, cases, pmus, filter);
  }
  if (!planned.ok()) return planned;
  Plan& plan = builder.plan();
  for (const CaseRequest& c : cases) plan.case_names.push_back(c.name);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (plan.case_set[i] == kNoSet) continue;
    PlannedSet& set = plan.sets[plan.case_set[i]];
    set.cases.push_back(static_cast<int>(i));
    set.will_run = set.will_run || MayRun(cases[i].name, filter);
  }
  PlanPinning(plan, pmus);
  return std::move(plan);
}

namespace {

// Every case that counts `set_index` now counts nothing.
void Uncount(Plan& plan, int set_index) {
  PlannedSet& set = plan.sets[set_index];
  for (int c : set.cases) plan.case_set[c] = kNoSet;
  set.will_run = false;
}

std::vector<std::string> CaseNames(const Plan& plan, const PlannedSet& set) {
  std::vector<std::string> names;
  for (int c : set.cases) names.push_back(plan.case_names[c]);
  return names;
}

// The events the PMU lacks leave the set; its cases count the rest.
void DropEvents(Plan& plan, int set_index, const std::vector<int>& missing) {
  PlannedSet& set = plan.sets[set_index];
  std::vector<std::string> dropped;
  for (int i : missing) dropped.push_back(set.set.events[i].spec);
  set.set = WithoutEvents(set.set, missing);
  set.probed = false;
  const std::string who = set.is_default
                              ? std::string("the default set")
                              : absl::StrCat(SomeNames(CaseNames(plan, set)));
  plan.notices.push_back(absl::StrCat(
      "pmubench: ", set.origin, ": this machine's PMU cannot count ",
      absl::StrJoin(dropped, ","), " (not found); ", who, " counts ",
      set.set.SpecList(), " without ", dropped.size() == 1 ? "it" : "them"));
}

void NoteUncountable(Plan& plan, int set_index) {
  const PlannedSet& set = plan.sets[set_index];
  plan.notices.push_back(absl::StrCat(
      "pmubench: ", set.origin, ": this machine's PMU counts none of ",
      set.set.SpecList(), "; ", SomeNames(CaseNames(plan, set)),
      " run without counters"));
}

// One line for every set this user may not open, with the cases it leaves
// uncounted and the first refusal's remedy.
void NoteRefused(Plan& plan, const std::vector<int>& refused,
                 const absl::Status& first) {
  std::vector<std::string> parts;
  for (int s : refused) {
    const std::vector<std::string> names = CaseNames(plan, plan.sets[s]);
    parts.push_back(absl::StrCat(plan.sets[s].origin, " (",
                                 names.size() == 1 ? "case " : "cases ",
                                 absl::StrJoin(names, ", "), ")"));
  }
  plan.notices.push_back(absl::StrCat(
      "pmubench: perf_event_open was refused for ", absl::StrJoin(parts, "; "),
      ": ", first.message(), "; running without counters"));
}

}  // namespace

namespace {

void KeepSplit(Plan& plan, int index, const SetProbe& probe) {
  PlannedSet& set = plan.sets[index];
  set.groups.clear();
  for (const std::vector<int>& indices : probe.groups) {
    set.groups.push_back(GroupOf(set.set, indices));
  }
  for (const std::string& metric : probe.underived) {
    plan.notices.push_back(absl::StrCat(
        "pmubench: ", metric, " is not reported for ", set.origin,
        ": its two events do not fit one counter group together, so they "
        "count different batches"));
  }
}

}  // namespace

absl::StatusOr<bool> ApplyProbes(
    Plan& plan, const std::vector<std::optional<SetProbe>>& probes) {
  bool changed = false;
  std::vector<int> refused;
  absl::Status first_refusal;
  for (size_t s = 0; s < plan.sets.size() && s < probes.size(); ++s) {
    if (!probes[s].has_value()) continue;
    PlannedSet& set = plan.sets[s];
    const SetProbe& probe = *probes[s];
    set.probed = true;
    if (probe.status.ok()) {
      KeepSplit(plan, static_cast<int>(s), probe);
      continue;
    }
    if (set.is_explicit) return WithOrigin(probe.status, set.origin);
    const int index = static_cast<int>(s);
    if (absl::IsPermissionDenied(probe.status)) {
      if (refused.empty()) first_refusal = probe.status;
      refused.push_back(index);
      Uncount(plan, index);
    } else if (absl::IsNotFound(probe.status) && !probe.not_found.empty() &&
               probe.not_found.size() < set.set.events.size()) {
      DropEvents(plan, index, probe.not_found);
      changed = true;
    } else if (absl::IsNotFound(probe.status) &&
               probe.not_found.size() == set.set.events.size()) {
      NoteUncountable(plan, index);
      Uncount(plan, index);
    } else {
      return WithOrigin(probe.status, set.origin);
    }
  }
  if (!refused.empty()) NoteRefused(plan, refused, first_refusal);
  return changed;
}

namespace {

// POSIX extended regex search, as Google Benchmark matches its filter
// (regcomp(3) with REG_EXTENDED); false for a pattern that does not compile.
bool Search(const std::string& pattern, const std::string& text) {
  regex_t compiled;
  if (regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
    return false;
  }
  const bool found = regexec(&compiled, text.c_str(), 0, nullptr, 0) == 0;
  regfree(&compiled);
  return found;
}

// Whether `pattern` (a positive filter) may match some run name that starts
// with `name`: the whole pattern, or its part before some '/', closed with
// the parentheses it leaves open ("^(BM_A|BM_B/1/)" gives "^(BM_A|BM_B)").
bool MayMatchExtension(const std::string& pattern, const std::string& name) {
  if (Search(pattern, name) || Search(pattern, name + "/")) return true;
  for (size_t slash = pattern.find('/'); slash != std::string::npos;
       slash = pattern.find('/', slash + 1)) {
    std::string prefix = pattern.substr(0, slash);
    const auto open = std::count(prefix.begin(), prefix.end(), '(');
    const auto close = std::count(prefix.begin(), prefix.end(), ')');
    if (open > close) prefix.append(static_cast<size_t>(open - close), ')');
    if (Search(prefix, name)) return true;
  }
  return false;
}

}  // namespace

bool MayRun(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all") return true;
  if (filter[0] == '-') {
    // Excluded only when every run name matches: a match inside `name`
    // matches every extension of it, unless the pattern anchors its end.
    const std::string pattern = filter.substr(1);
    if (pattern.find('$') != std::string::npos) return true;
    return !Search(pattern, name);
  }
  return MayMatchExtension(filter, name);
}

}  // namespace pmubench::internal
