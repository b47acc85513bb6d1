// PMU discovery through sysfs: which PMUs the kernel exposes
// (/sys/bus/event_source/devices/<pmu>/type), their format fields
// (format/<term>: "config:0-7,21") and event aliases (events/<alias>).
//
// The root directory is a parameter so tests can point it at a synthetic tree.
#ifndef PMUBENCH_FRAMEWORK_PERF_PMU_H_
#define PMUBENCH_FRAMEWORK_PERF_PMU_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace pmubench::perf {

inline constexpr char kDefaultSysfsRoot[] = "/sys/bus/event_source/devices";

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
};

struct Pmu {
  std::string name;
  uint32_t type = 0;
  std::map<std::string, FormatField> formats;
  std::map<std::string, EventAlias> aliases;
};

class PmuRegistry {
 public:
  // Reads every PMU under `root`. A missing root yields an empty registry
  // (a kernel without perf sysfs still has the generic/software events).
  static absl::StatusOr<PmuRegistry> Load(
      std::string root = kDefaultSysfsRoot);

  // nullptr when there is no PMU of that name.
  const Pmu* Find(std::string_view name) const;

  std::vector<std::string> Names() const;

  // The core (CPU) PMU: "cpu", or "cpu_core" on a hybrid machine (the
  // performance cores), or an arm64 core PMU ("armv8_pmuv3_0", ...).
  // nullptr when the machine has no hardware PMU (for example a VM without a
  // virtual PMU).
  const Pmu* CorePmu() const;
  bool HasHardwarePmu() const { return CorePmu() != nullptr; }
  bool IsHybrid() const;

  // /sys/bus/event_source/devices/cpu/rdpmc (0 never, 1 while an event is
  // mmapped, 2 always); nullopt when the file is absent.
  std::optional<int> RdpmcSetting() const;

  // The CPUs a PMU counts on, from <root>/<pmu>/cpus (the core PMUs of a
  // hybrid machine) or else <root>/<pmu>/cpumask. The runner pins a thread to
  // these CPUs before it opens events of that PMU. NotFound when the PMU or
  // both files are missing.
  absl::StatusOr<std::vector<int>> CpuList(std::string_view pmu_name) const;

  const std::string& root() const { return root_; }

  // Parses one format file's content ("config:0-7,21", "config1:0-63").
  static absl::StatusOr<FormatField> ParseFormat(std::string_view text);

  // Parses a kernel cpu list ("0-3,8,10-11") into {0, 1, 2, 3, 8, 10, 11}.
  static absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text);

 private:
  std::string root_;
  std::map<std::string, Pmu> pmus_;
  std::optional<int> rdpmc_setting_;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_PMU_H_
