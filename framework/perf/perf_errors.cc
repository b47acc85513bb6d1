#include "framework/perf/perf_errors.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/perf/machine.h"
#include "framework/perf/pmu.h"
#include "framework/perf/sysfs_file.h"

namespace pmubench::perf {
namespace {

std::string Describe(const ResolvedEvent& e) {
  return absl::StrFormat("perf_event_open(%s) [type %u, config %#x]", e.spec,
                         e.type, e.config);
}

std::string ErrnoText(int err) {
  return absl::StrCat(strerrorname_np(err) ? strerrorname_np(err) : "errno",
                      " ", err, ": ", std::strerror(err));
}

std::string CounterCountText() {
  std::optional<int> n = GeneralPurposeCounterCount();
  return n ? absl::StrCat(*n, " general-purpose counters")
           : std::string("an unknown number of counters");
}

}  // namespace

absl::Status PerfOpenError(int err, const ResolvedEvent& event, int index,
                           int group_size) {
  const std::string what = absl::StrCat(Describe(event), ": ", ErrnoText(err));
  switch (err) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
      if (event.needs_hardware_pmu && !event.core_pmu.empty()) {
        // The core PMU exists: it lacks this event (arm64 PMUs count only
        // the common events their PMCEID registers advertise).
        return absl::NotFoundError(absl::StrCat(
            what, ": the core PMU (", event.core_pmu, ") does not count '",
            event.spec, "'; drop it, or pick one of the events in ",
            kDefaultSysfsRoot, "/", event.core_pmu, "/events"));
      }
      if (event.needs_hardware_pmu) {
        return absl::NotFoundError(absl::StrCat(
            what, ": the kernel has no PMU that counts this event; ",
            kNoHardwarePmuRemedy));
      }
      return absl::NotFoundError(absl::StrCat(
          what, ": the kernel does not support this event or an attribute "
                "of it on this machine (PMU ",
          event.pmu_name, "); check `perf list` for what it can count"));
    case EACCES:
    case EPERM: {
      const std::optional<int> paranoid = PerfEventParanoid();
      const std::string level =
          paranoid ? absl::StrCat(*paranoid) : std::string("unreadable");
      return absl::PermissionDeniedError(absl::StrCat(
          what, ": not allowed with perf_event_paranoid = ", level, " (",
          kParanoidPath,
          "); events that include the kernel (:k, :uk) need "
          "perf_event_paranoid <= 1, user-space events need <= 2, or grant "
          "CAP_PERFMON (setcap cap_perfmon+ep BINARY; CAP_SYS_ADMIN on "
          "kernels before 5.8). Fix: `sudo sysctl -w "
          "kernel.perf_event_paranoid=1`, or count user space only with :u"));
    }
    case EMFILE:
    case ENFILE: {
      rlimit limit{};
      getrlimit(RLIMIT_NOFILE, &limit);
      return absl::ResourceExhaustedError(absl::StrCat(
          what, ": too many open files (each event holds one fd; the process "
                "limit RLIMIT_NOFILE is ",
          limit.rlim_cur,
          "); raise it with `ulimit -n 4096` or count fewer events or "
          "threads"));
    }
    case EINVAL:
      if (event.needs_hardware_pmu && group_size > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": the kernel rejected event ", index + 1, " of a group of ",
            group_size, "; the core PMU has ", CounterCountText(),
            ", so the group may not fit at once: drop events or split them "
            "across runs"));
      }
      if (!event.needs_hardware_pmu &&
          ReadTrimmedFile(absl::StrCat(kDefaultSysfsRoot, "/", event.pmu_name,
                                       "/cpumask"))) {
        // Uncore-like PMUs (power, uncore_*) refuse per-task events
        // (perf_event_open(2): pid 0 with cpu -1) with EINVAL.
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": PMU ", event.pmu_name,
            " counts whole CPUs (it has a cpumask), not one thread; "
            "pmubench counts the benchmark thread only, so drop this event "
            "or measure it with `perf stat -a`"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the PMU rejected this attribute; check the event's terms "
                "against /sys/bus/event_source/devices/",
          event.pmu_name, "/format and its modifiers"));
    case EBUSY:
      return absl::UnavailableError(absl::StrCat(
          what, ": the PMU is held exclusively by another user (another "
                "profiler or the NMI watchdog?); stop it and retry"));
    default:
      return absl::InternalError(what);
  }
}

}  // namespace pmubench::perf
