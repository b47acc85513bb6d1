// PMU discovery through sysfs: which PMUs the kernel exposes
// (/sys/bus/event_source/devices/<pmu>/type), their format fields
// (format/<term>: "config:0-7,21") and event aliases (events/<alias>).
//
// The root directory is a parameter so tests can point it at a synthetic tree.
#ifndef PMUBENCH_FRAMEWORK_PERF_EVENTS_PMU_H_
#define PMUBENCH_FRAMEWORK_PERF_EVENTS_PMU_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace pmubench::perf {

inline constexpr char kDefaultSysfsRoot[] = "/sys/bus/event_source/devices";

// CPU numbers in a sysfs cpu list are below this. The kernel's own limit is
// CONFIG_NR_CPUS, at most 8192 in mainline Kconfig (x86_64 MAXSMP, powerpc;
// arm64 4096); 65536 leaves room for larger machines while bounding a
// parsed list to 256 KiB whatever the file holds.
inline constexpr int kCpuLimit = 1 << 16;

// One contiguous bit range of a format field: bits [lo, hi] of
// perf_event_attr.config (word 0), config1 (word 1) or config2 (word 2).
struct BitRange {
  int word = 0;
  int lo = 0;
  int hi = 0;
};

// A format term ("event", "umask", ...). A value's low bits fill the first
// range, the next bits the second, and so on ("config:0-7,21").
struct FormatField {
  std::vector<BitRange> ranges;
};

// A sysfs event alias: its term string ("event=0x3c,umask=0x00") plus the
// optional .scale and .unit files beside it.
struct EventAlias {
  std::string terms;
  double scale = 1.0;
  std::string unit;
  // Non-empty when the .scale file holds no positive finite number (nan,
  // inf, 0, negative, not a number): the file's path and content. Using the
  // alias is then an error; scale stays 1.
  std::string bad_scale;
};

struct Pmu {
  std::string name;
  uint32_t type = 0;
  std::map<std::string, FormatField> formats;
  std::map<std::string, EventAlias> aliases;
  // A core (CPU) PMU: x86 "cpu", "cpu_core", "cpu_atom"; an arm64 PMU named
  // after its core ("armv8_pmuv3", "armv8_pmuv3_0", "armv8_cortex_a72",
  // "armv9_...", Apple's "apple_*_pmu") that has a cpus file or a
  // format/event term.
  bool is_core = false;
  // <pmu>/cpus (the core PMUs of hybrid x86 and of arm64), else empty.
  std::vector<int> cpus;
};

class PmuRegistry {
 public:
  // Reads every PMU under `root`. A missing root yields an empty registry
  // (a kernel without perf sysfs still has the generic/software events).
  static absl::StatusOr<PmuRegistry> Load(std::string root = kDefaultSysfsRoot);

  // nullptr when there is no PMU of that name.
  const Pmu* Find(std::string_view name) const;

  std::vector<std::string> Names() const;

  // The core (CPU) PMU that counts generic hardware events: "cpu", or
  // "cpu_core" on a hybrid x86 machine (the performance cores); on arm64 the
  // core PMU whose cpus include the highest-numbered CPU (big.LITTLE SoCs
  // number their big cores last), or the only one. nullptr when the machine
  // has no hardware PMU (for example a VM without a virtual PMU).
  const Pmu* CorePmu() const;
  bool HasHardwarePmu() const { return CorePmu() != nullptr; }

  // Every core PMU, by name. More than one (cpu_core + cpu_atom, or
  // armv8_cortex_a53 + armv8_cortex_a72 on big.LITTLE) makes the machine
  // hybrid: generic events then name CorePmu() in config bits 32-63.
  std::vector<const Pmu*> CorePmus() const;
  bool IsHybrid() const { return CorePmus().size() > 1; }

  // x86 only: <root>/<core pmu>/rdpmc (0 never, 1 while an event is mmapped,
  // 2 always); nullopt when the file is absent (arm64 has none: its knob is
  // the sysctl kernel.perf_user_access, see machine.h).
  std::optional<int> RdpmcSetting() const;

  // The CPUs a PMU counts on, from <root>/<pmu>/cpus (the core PMUs of a
  // hybrid machine) or else <root>/<pmu>/cpumask. A thread measuring a
  // hybrid core PMU's events counts only while it runs on these CPUs.
  // NotFound when the PMU or both files are missing.
  absl::StatusOr<std::vector<int>> CpuList(std::string_view pmu_name) const;

  const std::string& root() const { return root_; }

  // Parses one format file's content ("config:0-7,21", "config1:0-63").
  static absl::StatusOr<FormatField> ParseFormat(std::string_view text);

  // Parses a kernel cpu list ("0-3,8,10-11") into {0, 1, 2, 3, 8, 10, 11}:
  // decimal CPU numbers below kCpuLimit, single or LO-HI ranges, each part
  // above the one before (as the kernel prints a cpumask, bitmap_print_list).
  // Anything else is InvalidArgument naming the part, so the list holds at
  // most kCpuLimit entries whatever the text.
  static absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text);

 private:
  std::string root_;
  std::map<std::string, Pmu> pmus_;
  std::optional<int> rdpmc_setting_;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_EVENTS_PMU_H_
