// CodeRegion: where a sampled address lies when no symbol table may name
// it: the kernel, the vDSO (the kernel's code mapped into every process,
// vdso(7)), or user space proper.
//
//   AddressRange vdso = VdsoOfThisProcess();
//   switch (RegionOf(sample.misc, sample.ip, vdso)) { ... }
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLS_CODE_REGION_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLS_CODE_REGION_H_

#include <cstdint>
#include <istream>

namespace pmubench::perf {

enum class CodeRegion { kUser, kKernel, kVdso };

struct AddressRange {
  uint64_t begin = 0;
  uint64_t end = 0;  // one past the last byte; begin == end: empty
  bool Contains(uint64_t address) const {
    return address >= begin && address < end;
  }
};

// The region of a sample taken at `ip` whose header's misc is `misc`
// (linux/perf_event.h: PERF_RECORD_MISC_CPUMODE_MASK picks KERNEL, USER,
// ...); for a callchain entry under PERF_CONTEXT_USER pass
// PERF_RECORD_MISC_USER. The kernel is the header's word, or an address in
// the upper half, where x86-64 and arm64 map the kernel.
CodeRegion RegionOf(uint16_t misc, uint64_t ip, const AddressRange& vdso);

// The "[vdso]" line of a /proc/PID/maps text (proc(5)); empty when none.
AddressRange VdsoInMaps(std::istream& maps);

// This process's vDSO, read once from /proc/self/maps.
const AddressRange& VdsoOfThisProcess();

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLS_CODE_REGION_H_
