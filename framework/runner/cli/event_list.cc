#include "framework/runner/cli/event_list.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/counting/scoped_fd.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/named_events.h"

namespace pmubench::internal {
namespace {

// Software events that count nothing (perf_event_open(2): PERF_COUNT_SW_DUMMY
// carries sideband records; PERF_COUNT_SW_BPF_OUTPUT is written by BPF).
bool CountsNothing(const perf::NamedEvent& e) {
  return e.type == PERF_TYPE_SOFTWARE && (e.config == PERF_COUNT_SW_DUMMY ||
                                          e.config == PERF_COUNT_SW_BPF_OUTPUT);
}

EventGroup GroupOf(uint32_t type) {
  switch (type) {
    case PERF_TYPE_HARDWARE:
      return EventGroup::kHardware;
    case PERF_TYPE_HW_CACHE:
      return EventGroup::kHardwareCache;
    default:
      return EventGroup::kSoftware;
  }
}

const char* GroupTitle(EventGroup group) {
  switch (group) {
    case EventGroup::kHardware:
      return "Hardware events";
    case EventGroup::kHardwareCache:
      return "Hardware cache events";
    case EventGroup::kSoftware:
      return "Software events";
    case EventGroup::kPmu:
      return "PMU events (pmu/alias/, from sysfs)";
  }
  return "";
}

// What the usual errno values of perf_event_open(2) mean for one event.
const char* ReasonHint(std::string_view reason) {
  if (reason == "ENOENT" || reason == "ENODEV") {
    return "no PMU here counts it";
  }
  if (reason == "EOPNOTSUPP") return "the PMU cannot count it for one thread";
  if (reason == "EACCES" || reason == "EPERM") {
    return "not permitted (kernel.perf_event_paranoid, CAP_PERFMON)";
  }
  if (reason == "EINVAL") return "the kernel rejects the attr";
  return "";
}

// Appends `names` after `indent`, wrapped before column 80.
void AppendWrapped(std::string* out, const std::vector<std::string>& names,
                   const std::string& indent) {
  size_t column = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string item = names[i] + (i + 1 < names.size() ? "," : "");
    if (column == 0) {
      absl::StrAppend(out, indent, item);
      column = indent.size() + item.size();
    } else if (column + 1 + item.size() > 79) {
      absl::StrAppend(out, "\n", indent, item);
      column = indent.size() + item.size();
    } else {
      absl::StrAppend(out, " ", item);
      column += 1 + item.size();
    }
  }
  if (column != 0) out->append("\n");
}

}  // namespace

std::vector<EventCandidate> ListCandidates(const perf::PmuRegistry& pmus) {
  std::vector<EventCandidate> out;
  for (const perf::NamedEvent& e : perf::AllNamedEvents()) {
    if (CountsNothing(e)) continue;
    out.push_back({e.name, GroupOf(e.type), ""});
  }
  for (const std::string& name : pmus.Names()) {
    const perf::Pmu* pmu = pmus.Find(name);
    for (const auto& [alias, unused] : pmu->aliases) {
      out.push_back(
          {absl::StrCat(name, "/", alias, "/"), EventGroup::kPmu, name});
    }
  }
  return out;
}

std::vector<ProbedEvent> ProbeEvents(
    const std::vector<EventCandidate>& candidates,
    const perf::PmuRegistry& pmus) {
  std::vector<ProbedEvent> out;
  for (const EventCandidate& c : candidates) {
    ProbedEvent p{c, false, ""};
    absl::StatusOr<perf::ResolvedEvent> event =
        perf::ResolveEvent(c.name, pmus);
    if (!event.ok()) {
      p.reason = absl::StrCat("unresolved: ", event.status().message());
      out.push_back(std::move(p));
      continue;
    }
    perf_event_attr attr =
        perf::EventAttr(*event, /*exclude_kernel_default=*/true);
    attr.disabled = 1;
    // A PMU that cannot separate user from kernel (msr) rejects exclude
    // bits; CounterGroup retries the same way.
    perf::ScopedFd fd(static_cast<int>(
        syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)));
    if (fd.get() < 0 && errno == EINVAL &&
        (attr.exclude_kernel || attr.exclude_hv) &&
        !event->modifiers.explicit_) {
      attr.exclude_kernel = 0;
      attr.exclude_hv = 0;
      fd = perf::ScopedFd(static_cast<int>(syscall(
          SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)));
    }
    if (fd.get() >= 0) {
      p.counted = true;
    } else {
      const int err = errno;
      const char* name = strerrorname_np(err);
      p.reason = name != nullptr ? name : absl::StrCat("errno ", err);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string FormatEventList(const std::vector<ProbedEvent>& probed) {
  std::string out;
  int counted = 0;
  for (EventGroup group : {EventGroup::kHardware, EventGroup::kHardwareCache,
                           EventGroup::kSoftware, EventGroup::kPmu}) {
    std::string section;
    std::string pmu;
    for (const ProbedEvent& p : probed) {
      if (!p.counted || p.candidate.group != group) continue;
      ++counted;
      if (group == EventGroup::kPmu && p.candidate.pmu != pmu) {
        pmu = p.candidate.pmu;
        absl::StrAppend(&section, "  ", pmu, ":\n");
      }
      absl::StrAppend(&section, group == EventGroup::kPmu ? "    " : "  ",
                      p.candidate.name, "\n");
    }
    if (!section.empty())
      absl::StrAppend(&out, GroupTitle(group), ":\n", section);
  }
  // Refused names grouped by reason, reasons in order of first appearance.
  std::vector<std::string> reasons;
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const ProbedEvent& p : probed) {
    if (p.counted) continue;
    auto [it, added] = by_reason.try_emplace(p.reason);
    if (added) reasons.push_back(p.reason);
    it->second.push_back(p.candidate.name);
  }
  const int refused = static_cast<int>(probed.size()) - counted;
  if (refused > 0) {
    absl::StrAppend(&out, counted > 0 ? "\n" : "",
                    "Cannot be counted on this machine (the errno of "
                    "perf_event_open):\n");
    for (const std::string& reason : reasons) {
      const char* hint = ReasonHint(reason);
      absl::StrAppend(&out, "  ", reason, *hint ? " (" : "", hint,
                      *hint ? ")" : "", ":\n");
      AppendWrapped(&out, by_reason[reason], "    ");
    }
  }
  absl::StrAppend(&out, "\n", counted, " of ", probed.size(),
                  " events can be counted (each opened for this thread, then "
                  "closed).\n"
                  "A set of more events than the PMU counts at once is split "
                  "into groups that\ntake turns, each batch running once per "
                  "group (--pmubench_multiplex: counted\nat once, "
                  "scaled).\n");
  return out;
}

}  // namespace pmubench::internal
