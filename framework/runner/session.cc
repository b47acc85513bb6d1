#include "framework/runner/session.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "framework/perf/counter_group.h"
#include "framework/perf/pmu.h"
#include "framework/runner/event_set.h"
#include "framework/runner/registration.h"
#include "framework/runner/thread_groups.h"

namespace pmubench {
namespace {

using internal::Case;
using internal::EventSet;

struct SessionState {
  std::mutex mu;
  std::atomic<bool> prepared{false};
  // Every set ever used, never freed: thread caches and cases point at them.
  std::vector<std::unique_ptr<EventSet>> sets;
};

SessionState& Session() {
  static auto* session = new SessionState();
  return *session;
}

const EventSet* Intern(SessionState& session, EventSet set) {
  for (const auto& known : session.sets) {
    if (known->key == set.key) return known.get();
  }
  session.sets.push_back(std::make_unique<EventSet>(std::move(set)));
  return session.sets.back().get();
}

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

std::string FormatEvents(const std::vector<const EventSet*>& sets,
                         const std::vector<internal::ThreadGroup*>& groups) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (size_t s = 0; s < sets.size(); ++s) {
    for (const perf::OpenedEvent& opened : groups[s]->group.events()) {
      if (!seen.insert(opened.event.spec).second) continue;
      parts.push_back(absl::StrFormat(
          "%s (pmu=%s type=%u config=0x%x read=%s)", opened.event.spec,
          opened.event.pmu_name, opened.attr.type,
          static_cast<uint64_t>(opened.attr.config),
          perf::ReadMethodName(opened.read_method)));
    }
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, "; ");
}

std::string FormatOverhead(const std::vector<const EventSet*>& sets,
                           const std::vector<internal::ThreadGroup*>& groups) {
  std::vector<std::string> parts;
  for (size_t s = 0; s < sets.size(); ++s) {
    std::vector<std::string> pairs;
    for (int i = 0; i < sets[s]->size(); ++i) {
      pairs.push_back(absl::StrFormat("%s=%g", sets[s]->events[i].spec,
                                      groups[s]->overhead[i]));
    }
    parts.push_back(absl::StrJoin(pairs, " "));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, "; ");
}

// "family=file;..." for pmubench_case_files: a case's family is its name up
// to the first '/' (Google Benchmark's run names start with the registered
// name, so "BM_X/label" of PMU_BENCHMARK_CAPTURE is family BM_X and fixture
// "Base/Method" is family Base), its file the basename of __FILE__ without
// last extension. A family registered from two files keeps the first.
std::string FormatCaseFiles(const std::vector<Case*>& cases) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const Case* c : cases) {
    const std::string family = c->name.substr(0, c->name.find('/'));
    if (!seen.insert(family).second) continue;
    std::string file = c->file.substr(c->file.find_last_of('/') + 1);
    file = file.substr(0, file.rfind('.'));
    parts.push_back(absl::StrCat(family, "=", file));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, ";");
}

absl::StatusOr<SessionInfo> PrepareLocked(SessionState& session,
                                          const RunOptions& options) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  if (!pmus.ok()) return WithOrigin(pmus.status(), "reading PMUs from sysfs");
  perf::GroupOptions group_options;
  group_options.use_rdpmc = options.use_rdpmc;
  const bool has_hardware = pmus->HasHardwarePmu();
  const std::vector<Case*> cases = internal::RegisteredCases();

  // Decide every case's set; remember where each set came from for errors.
  std::vector<const EventSet*> decided(cases.size(), nullptr);
  std::vector<bool> fell_back(cases.size(), false);
  std::map<const EventSet*, std::string> origin;
  auto make = [&](std::string_view specs,
                  std::string description) -> absl::StatusOr<const EventSet*> {
    absl::StatusOr<EventSet> set =
        internal::MakeEventSet(specs, *pmus, group_options);
    if (!set.ok()) return WithOrigin(set.status(), description);
    const EventSet* interned = Intern(session, *std::move(set));
    origin.emplace(interned, std::move(description));
    return interned;
  };

  const std::string counters(absl::StripAsciiWhitespace(options.counters));
  std::string notice;
  if (counters == internal::kNoCounters) {
    // Counting off: every case keeps a null set.
  } else if (!counters.empty()) {
    const std::string description = absl::StrCat("--counters=", counters);
    absl::StatusOr<const EventSet*> set = make(counters, description);
    if (!set.ok()) return set.status();
    if (const perf::ResolvedEvent* e = FirstNeedingHardware(**set);
        e != nullptr && !has_hardware) {
      return absl::NotFoundError(
          absl::StrCat(description, ": '", e->spec,
                       "' needs a hardware PMU, but ", NoPmuReason(*pmus),
                       ". Count software events instead (e.g. --counters=",
                       internal::kSoftwareDefaultEvents,
                       " or msr/tsc/), or run on a machine with a PMU"));
    }
    for (size_t i = 0; i < cases.size(); ++i) decided[i] = *set;
  } else {
    absl::StatusOr<const EventSet*> software =
        make(internal::kSoftwareDefaultEvents, "the software default events");
    if (!software.ok()) return software.status();
    const EventSet* default_set = *software;
    if (has_hardware) {
      absl::StatusOr<const EventSet*> hardware =
          make(internal::kHardwareDefaultEvents, "the default events");
      if (!hardware.ok()) return hardware.status();
      default_set = *hardware;
    }
    bool default_used = false;
    std::vector<std::string> fallen;
    for (size_t i = 0; i < cases.size(); ++i) {
      if (cases[i]->requested_counters.empty()) {
        decided[i] = default_set;
        default_used = true;
        continue;
      }
      if (absl::StripAsciiWhitespace(cases[i]->requested_counters) ==
          internal::kNoCounters) {
        continue;  // the case turned counting off for itself
      }
      absl::StatusOr<const EventSet*> own =
          make(cases[i]->requested_counters,
               absl::StrCat("PMU_BENCHMARK_WITH_COUNTERS(", cases[i]->name,
                            ", \"", cases[i]->requested_counters, "\")"));
      if (!own.ok()) return own.status();
      if (!has_hardware && FirstNeedingHardware(**own) != nullptr) {
        decided[i] = *software;
        fell_back[i] = true;
        fallen.push_back(cases[i]->name);
      } else {
        decided[i] = *own;
      }
    }
    if (!has_hardware && (default_used || !fallen.empty())) {
      std::string replaced;
      if (default_used) {
        replaced =
            absl::StrCat("the default ", internal::kHardwareDefaultEvents);
      }
      if (!fallen.empty()) {
        std::vector<std::string> named(
            fallen.begin(),
            fallen.begin() + std::min<size_t>(3, fallen.size()));
        absl::StrAppend(&replaced, replaced.empty() ? "" : " and ",
                        "the hardware events of ", fallen.size(),
                        fallen.size() == 1 ? " case (" : " cases (",
                        absl::StrJoin(named, ", "),
                        fallen.size() > 3 ? ", ..." : "", ")");
      }
      notice = absl::StrCat("pmubench: ", NoPmuReason(*pmus), "; counting ",
                            internal::kSoftwareDefaultEvents, " instead of ",
                            replaced);
    }
  }

  // Open each distinct set once on this thread: this checks that the machine
  // can count it (errors before any benchmark runs), calibrates its overhead,
  // and leaves the group open for the batches thread 0 runs here.
  std::vector<const EventSet*> used;
  std::vector<internal::ThreadGroup*> groups;
  std::set<const EventSet*> tried;   // opened or denied
  std::set<const EventSet*> denied;
  for (const EventSet* set : decided) {
    if (set == nullptr || !tried.insert(set).second) continue;
    absl::StatusOr<internal::ThreadGroup*> group =
        internal::ThreadGroupFor(*set);
    // Events the user did not ask for by name (the defaults, a case's own
    // list) that this user may not count at all (perf_event_paranoid 3 on
    // Debian kernels, a container's seccomp profile): the run goes on
    // without counters and says why. An explicit --counters list fails.
    if (!group.ok() && counters.empty() &&
        absl::IsPermissionDenied(group.status())) {
      if (denied.empty()) {
        absl::StrAppend(&notice, notice.empty() ? "" : "\n", "pmubench: ",
                        origin[set], ": ", group.status().message(),
                        "; running without counters");
      }
      denied.insert(set);
      continue;
    }
    if (!group.ok()) return WithOrigin(group.status(), origin[set]);
    used.push_back(set);
    groups.push_back(*group);
  }
  for (const EventSet*& set : decided) {
    if (denied.count(set) != 0) set = nullptr;
  }

  for (size_t i = 0; i < cases.size(); ++i) {
    cases[i]->events = decided[i];
    cases[i]->fell_back = fell_back[i];
  }

  SessionInfo info;
  info.notice = notice;
  std::set<std::string> methods;
  for (size_t s = 0; s < used.size(); ++s) {
    info.event_lists.push_back(used[s]->SpecList());
    for (const perf::OpenedEvent& e : groups[s]->group.events()) {
      methods.insert(perf::ReadMethodName(e.read_method));
    }
  }
  for (const EventSet* set : used) {
    auto add_name = [&info](const std::string& name) {
      if (std::find(info.counter_names.begin(), info.counter_names.end(),
                    name) == info.counter_names.end()) {
        info.counter_names.push_back(name);
      }
    };
    for (const perf::ResolvedEvent& e : set->events) add_name(e.spec);
    for (const internal::DerivedMetric& d : set->derived) add_name(d.name);
  }
  if (!used.empty())
    info.counter_names.push_back(internal::kRunningFractionName);
  info.read_methods = methods.empty() ? "none" : absl::StrJoin(methods, "+");
  std::vector<std::string> pmu_names = pmus->Names();
  info.context = {
      {"pmubench_version", kVersion},
      {"pmubench_pmus",
       pmu_names.empty() ? "none" : absl::StrJoin(pmu_names, ",")},
      {"pmubench_events", FormatEvents(used, groups)},
      {"pmubench_pinned", group_options.pinned ? "true" : "false"},
      {"pmubench_exclude_kernel",
       group_options.exclude_kernel ? "true" : "false"},
      {"pmubench_read_overhead", FormatOverhead(used, groups)},
      {"pmubench_case_files", FormatCaseFiles(cases)},
  };
  // One line in the context: Google Benchmark prints custom context values
  // as they are, and its console header is line-based.
  if (!notice.empty()) {
    info.context.emplace_back("pmubench_notice",
                              absl::StrReplaceAll(notice, {{"\n", " "}}));
  }
  session.prepared.store(true, std::memory_order_release);
  return info;
}

}  // namespace

absl::StatusOr<SessionInfo> Prepare(const RunOptions& options) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mu);
  return PrepareLocked(session, options);
}

namespace internal {

absl::Status EnsurePrepared() {
  SessionState& session = Session();
  // Checked once per batch: a lock-free fast path.
  if (session.prepared.load(std::memory_order_acquire)) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(session.mu);
  if (session.prepared.load(std::memory_order_relaxed)) return absl::OkStatus();
  return PrepareLocked(session, RunOptions{}).status();
}

}  // namespace internal
}  // namespace pmubench
