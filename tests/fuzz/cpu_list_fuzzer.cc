// libFuzzer target: PmuRegistry::ParseCpuList, the sysfs cpus/cpumask
// parser. Any text parses or is an error, quickly and within bounds: an
// accepted list is strictly ascending, below kCpuLimit, at most kCpuLimit
// long (the largest int once looped forever, a huge range allocated without
// bound).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "framework/perf/events/pmu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using pmubench::perf::kCpuLimit;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<int>> cpus =
      pmubench::perf::PmuRegistry::ParseCpuList(text);
  if (!cpus.ok()) return 0;
  if (cpus->size() > static_cast<size_t>(kCpuLimit)) std::abort();
  for (size_t i = 0; i < cpus->size(); ++i) {
    const int cpu = (*cpus)[i];
    if (cpu < 0 || cpu >= kCpuLimit) std::abort();
    if (i > 0 && cpu <= (*cpus)[i - 1]) std::abort();
  }
  return 0;
}
