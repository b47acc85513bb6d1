#include "framework/perf/symbols/code_region.h"

#include <linux/perf_event.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>

namespace pmubench::perf {

CodeRegion RegionOf(uint16_t misc, uint64_t ip, const AddressRange& vdso) {
  const uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
  if (mode == PERF_RECORD_MISC_KERNEL ||
      mode == PERF_RECORD_MISC_GUEST_KERNEL) {
    return CodeRegion::kKernel;
  }
  if (ip >> 63 != 0) return CodeRegion::kKernel;
  if (vdso.Contains(ip)) return CodeRegion::kVdso;
  return CodeRegion::kUser;
}

AddressRange VdsoInMaps(std::istream& maps) {
  std::string line;
  while (std::getline(maps, line)) {
    // "7ffd1b5f2000-7ffd1b5f4000 r-xp 00000000 00:00 0      [vdso]"
    if (line.size() < 6 || line.compare(line.size() - 6, 6, "[vdso]") != 0) {
      continue;
    }
    AddressRange range;
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64, &range.begin,
                    &range.end) == 2 &&
        range.begin < range.end) {
      return range;
    }
  }
  return {};
}

const AddressRange& VdsoOfThisProcess() {
  static const AddressRange vdso = [] {
    std::ifstream maps("/proc/self/maps");
    return VdsoInMaps(maps);
  }();
  return vdso;
}

}  // namespace pmubench::perf
