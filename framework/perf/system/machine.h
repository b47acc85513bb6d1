// Facts about this machine that decide what perf_event can do here, probed
// from procfs, sysfs and CPUID: the paranoia level, user-space counter reads
// (arm64's sysctl, x86's sysfs file) and the number of counters.
//
//   if (HostArch() == Arch::kArm64 && PerfUserAccess() == 0) { ... }
//
// Each probe returns nullopt when the fact cannot be read here; none fails.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYSTEM_MACHINE_H_
#define PMUBENCH_FRAMEWORK_PERF_SYSTEM_MACHINE_H_

#include <optional>
#include <string>

namespace pmubench::perf {

inline constexpr char kParanoidPath[] = "/proc/sys/kernel/perf_event_paranoid";
// arm64 (Linux 5.17+): 1 lets user space read counters of events that ask
// for it through the PMU's rdpmc format term; 0 (the default) forbids it.
inline constexpr char kPerfUserAccessPath[] =
    "/proc/sys/kernel/perf_user_access";

enum class Arch { kX86_64, kArm64, kOther };

// The architecture this binary was built for (and so runs on).
constexpr Arch HostArch() {
#if defined(__x86_64__)
  return Arch::kX86_64;
#elif defined(__aarch64__)
  return Arch::kArm64;
#else
  return Arch::kOther;
#endif
}

// /proc/sys/kernel/perf_event_paranoid, or nullopt when unreadable.
std::optional<int> PerfEventParanoid();

// /proc/sys/kernel/perf_user_access (arm64), or nullopt when absent (other
// architectures, arm64 kernels before 5.17).
std::optional<int> PerfUserAccess();

// An integer from a one-line file (sysfs, procfs); nullopt when the file is
// missing or does not hold one.
std::optional<int> ReadIntFile(const std::string& path);

// Number of general-purpose counters of this CPU's core PMU from CPUID (x86:
// leaf 0xA on Intel, leaf 0x80000022 or the family default on AMD); nullopt
// when unknown: arm64 keeps the count in PMCR_EL0.N, which user space cannot
// read (mrs pmcr_el0 traps), and sysfs does not publish it; a VM without a
// virtual PMU reports none.
std::optional<int> GeneralPurposeCounterCount();

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYSTEM_MACHINE_H_
