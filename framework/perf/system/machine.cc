#include "framework/perf/system/machine.h"

#include "absl/strings/numbers.h"
#include "framework/perf/system/sysfs_file.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace pmubench::perf {

std::optional<int> ReadIntFile(const std::string& path) {
  std::optional<std::string> text = ReadTrimmedFile(path);
  int value = 0;
  if (!text || !absl::SimpleAtoi(*text, &value)) return std::nullopt;
  return value;
}

std::optional<int> PerfEventParanoid() { return ReadIntFile(kParanoidPath); }

std::optional<int> PerfUserAccess() { return ReadIntFile(kPerfUserAccessPath); }

std::optional<int> GeneralPurposeCounterCount() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return std::nullopt;
  const bool amd = ebx == 0x68747541;  // "Auth" of "AuthenticAMD"
  if (!amd) {
    // Intel SDM, CPUID leaf 0AH: EAX[15:8] is the number of general-purpose
    // counters per logical processor; 0 in VMs without a virtual PMU.
    if (eax < 0xA) return std::nullopt;
    __cpuid(0xA, eax, ebx, ecx, edx);
    const int n = static_cast<int>((eax >> 8) & 0xff);
    return n > 0 ? std::optional<int>(n) : std::nullopt;
  }
  // AMD: leaf 0x80000022 EBX[3:0] (PerfMonV2), else 6 core counters with
  // PerfCtrExtCore (leaf 0x80000001 ECX bit 23), else the legacy 4.
  if (__get_cpuid(0x80000022, &eax, &ebx, &ecx, &edx) && (ebx & 0xf) != 0) {
    return static_cast<int>(ebx & 0xf);
  }
  if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx)) {
    return (ecx & (1u << 23)) ? 6 : 4;
  }
  return std::nullopt;
#else
  return std::nullopt;
#endif
}

}  // namespace pmubench::perf
