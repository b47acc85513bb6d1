#include "framework/perf/counting/perf_errors.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/perf/events/pmu.h"
#include "framework/perf/system/sysfs_file.h"

namespace pmubench::perf {
namespace {

// linux/perf_event.h PERF_HW_EVENT_MASK: the generic id below the PMU type.
constexpr uint64_t kHardwareEventMask = 0xffffffff;
// ARMV8_PMUV3_PERFCTR_CPU_CYCLES: the event the cycle counter counts.
constexpr uint64_t kArmCpuCyclesEvent = 0x11;

std::string Describe(const ResolvedEvent& e) {
  std::string text = absl::StrFormat("perf_event_open(%s) [type %u, config %#x",
                                     e.spec, e.type, e.config);
  if (e.config1 != 0) absl::StrAppendFormat(&text, ", config1 %#x", e.config1);
  return text + "]";
}

std::string ErrnoText(int err) {
  return absl::StrCat(strerrorname_np(err) ? strerrorname_np(err) : "errno",
                      " ", err, ": ", std::strerror(err));
}

absl::Status NotCountedError(const std::string& what,
                             const ResolvedEvent& event) {
  if (event.needs_hardware_pmu && !event.core_pmu.empty()) {
    // The core PMU exists: it lacks this event (arm64 PMUs count only the
    // common events their PMCEID registers advertise).
    return absl::NotFoundError(absl::StrCat(
        what, ": the core PMU (", event.core_pmu, ") does not count '",
        event.spec, "'; drop it, or pick one of the events in ",
        kDefaultSysfsRoot, "/", event.core_pmu, "/events"));
  }
  if (event.needs_hardware_pmu) {
    return absl::NotFoundError(
        absl::StrCat(what, ": the kernel has no PMU that counts this event; ",
                     kNoHardwarePmuRemedy));
  }
  return absl::NotFoundError(absl::StrCat(
      what,
      ": the kernel does not support this event or an attribute of it "
      "on this machine (PMU ",
      event.pmu_name, "); check `perf list` for what it can count"));
}

absl::Status NotPermittedError(const std::string& what) {
  const std::optional<int> paranoid = PerfEventParanoid();
  const std::string level =
      paranoid ? absl::StrCat(*paranoid) : std::string("unreadable");
  return absl::PermissionDeniedError(absl::StrCat(
      what, ": not allowed with perf_event_paranoid = ", level, " (",
      kParanoidPath,
      "); events that include the kernel (:k, :uk) need "
      "perf_event_paranoid <= 1, user-space events need <= 2, or grant "
      "CAP_PERFMON (setcap cap_perfmon+ep BINARY; CAP_SYS_ADMIN on kernels "
      "before 5.8). Fix: `sudo sysctl -w kernel.perf_event_paranoid=1`, or "
      "count user space only with :u"));
}

absl::Status TooManyFilesError(const std::string& what) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  return absl::ResourceExhaustedError(absl::StrCat(
      what,
      ": too many open files (each event holds one fd; the process "
      "limit RLIMIT_NOFILE is ",
      limit.rlim_cur,
      "); raise it with `ulimit -n 4096` or count fewer events or threads"));
}

absl::Status RejectedError(const std::string& what, const ResolvedEvent& event,
                           int index, int group_size) {
  if (event.needs_hardware_pmu && group_size > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the kernel rejected event ", index + 1, " of a group of ",
        group_size, "; the core PMU has ",
        CounterCountText(HostArch(), GeneralPurposeCounterCount()),
        ", so the group may not fit at once: drop events or split them "
        "across runs"));
  }
  if (!event.needs_hardware_pmu &&
      ReadTrimmedFile(
          absl::StrCat(kDefaultSysfsRoot, "/", event.pmu_name, "/cpumask"))) {
    // Uncore-like PMUs (power, uncore_*) refuse per-task events
    // (perf_event_open(2): pid 0 with cpu -1) with EINVAL.
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": PMU ", event.pmu_name,
        " counts whole CPUs (it has a cpumask), not one thread; pmubench "
        "counts the benchmark thread only, so drop this event or measure it "
        "with `perf stat -a`"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what,
      ": the PMU rejected this attribute; check the event's terms "
      "against ",
      kDefaultSysfsRoot, "/", event.pmu_name, "/format and its modifiers"));
}

// The spec without its modifier suffix ("msr/tsc/:u" -> "msr/tsc/").
std::string WithoutModifiers(const std::string& spec) {
  const size_t slash = spec.rfind('/');
  if (slash != std::string::npos) return spec.substr(0, slash + 1);
  return spec.substr(0, spec.rfind(':'));
}

}  // namespace

std::string CounterCountText(Arch arch, std::optional<int> counters) {
  if (counters) return absl::StrCat(*counters, " general-purpose counters");
  if (arch == Arch::kArm64) {
    // PMCR_EL0.N traps at EL0 and sysfs does not publish it.
    return "an unknown number of event counters besides the cycle counter "
           "(arm64 user space cannot read PMCR_EL0.N; the kernel logs it at "
           "boot: `dmesg | grep 'counters available'`)";
  }
  return "an unknown number of general-purpose counters";
}

absl::Status PerfOpenError(int err, const ResolvedEvent& event, int index,
                           int group_size) {
  const std::string what = absl::StrCat(Describe(event), ": ", ErrnoText(err));
  switch (err) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
      return NotCountedError(what, event);
    case EACCES:
    case EPERM:
      return NotPermittedError(what);
    case EMFILE:
    case ENFILE:
      return TooManyFilesError(what);
    case EINVAL:
      return RejectedError(what, event, index, group_size);
    case EBUSY:
      return absl::UnavailableError(
          absl::StrCat(what,
                       ": the PMU is held exclusively by another user (another "
                       "profiler or the NMI watchdog?); stop it and retry"));
    default:
      return absl::InternalError(what);
  }
}

absl::Status ModifierNotSeparableError(const ResolvedEvent& event) {
  const std::string bare = WithoutModifiers(event.spec);
  const std::string modifier = event.spec.substr(bare.size());
  return absl::InvalidArgumentError(absl::StrCat(
      "event spec \"", event.spec, "\": PMU ", event.pmu_name,
      " cannot separate user and kernel (it rejects the exclude_* bits of "
      "perf_event_attr with EINVAL) and would count both, ignoring the "
      "modifier; drop '",
      modifier, "' (write ", bare, ")"));
}

bool MayUseFixedCounter(const ResolvedEvent& event, Arch arch) {
  const uint64_t generic = event.config & kHardwareEventMask;
  const bool hardware = event.type == PERF_TYPE_HARDWARE;
  if (arch == Arch::kX86_64) {
    // Intel's fixed counters: instructions, core cycles, reference cycles.
    return hardware && (generic == PERF_COUNT_HW_CPU_CYCLES ||
                        generic == PERF_COUNT_HW_INSTRUCTIONS ||
                        generic == PERF_COUNT_HW_REF_CPU_CYCLES);
  }
  if (arch == Arch::kArm64) {
    // PMCCNTR_EL0 counts CPU_CYCLES (event 0x11), generic or raw.
    if (hardware) return generic == PERF_COUNT_HW_CPU_CYCLES;
    return !event.core_pmu.empty() && event.type != PERF_TYPE_HW_CACHE &&
           (event.config & 0xffff) == kArmCpuCyclesEvent;
  }
  return false;
}

absl::Status GroupErrorStateError(const std::vector<ResolvedEvent>& events,
                                  Arch arch, std::optional<int> counters) {
  const ResolvedEvent* drop = nullptr;
  for (auto it = events.rbegin(); it != events.rend() && drop == nullptr;
       ++it) {
    if (!MayUseFixedCounter(*it, arch)) drop = &*it;
  }
  std::string advice;
  if (drop != nullptr) {
    advice = absl::StrCat(
        "drop an event that takes a general-purpose "
        "counter, e.g. \"",
        drop->spec, "\"");
  } else {
    advice = "every event here may sit on a fixed counter: drop duplicates";
  }
  const std::string list = absl::StrJoin(
      events, ",",
      [](std::string* out, const ResolvedEvent& e) { out->append(e.spec); });
  return absl::FailedPreconditionError(absl::StrCat(
      "pinned group {", list,
      "} is in error state: the PMU could not "
      "schedule its ",
      events.size(), " events at once (the core PMU has ",
      CounterCountText(arch, counters),
      "; other pinned groups or the NMI watchdog may hold some); ", advice,
      arch == Arch::kArm64 ? " (cycles use the dedicated cycle counter)"
                           : " (cycles, instructions and ref-cycles may use "
                             "fixed counters)",
      ", or free a counter held by the NMI watchdog with `sysctl "
      "kernel.nmi_watchdog=0`"));
}

}  // namespace pmubench::perf
