// Symbolizer: in-process names for sampled addresses through Abseil's
// symbolizer (absl/debugging/symbolize.h), then a module's separate debug
// file (debug_symbols.h), demangled (demangle.h for what Abseil leaves
// mangled), cached per address. Addresses no symbol table
// names get a placeholder saying where they are: [kernel], [vdso], or
// [unknown] for user-space code without a readable symbol.
//
//   InitializeSymbolizer(argv[0]);  // once, before the first lookup
//   Symbolizer names;
//   std::string_view f = names.FunctionOf(ip);  // "Fib(int)" or "[unknown]"
//
// Not thread-safe: one per profile.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLS_SYMBOLIZER_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLS_SYMBOLIZER_H_

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "framework/perf/symbols/code_region.h"

namespace pmubench::perf {

// User-space code with no symbol pmubench can read: a stripped module
// without its debug file, JIT code, an anonymous executable mapping.
inline constexpr char kUnknownSymbol[] = "[unknown]";
inline constexpr char kKernelSymbol[] = "[kernel]";
inline constexpr char kVdsoSymbol[] = "[vdso]";

// Calls absl::InitializeSymbolizer(argv0) the first time; later calls do
// nothing.
void InitializeSymbolizer(const char* argv0);

class Symbolizer {
 public:
  explicit Symbolizer(AddressRange vdso = VdsoOfThisProcess()) : vdso_(vdso) {}

  // The demangled function containing `ip`, or kKernelSymbol, kVdsoSymbol
  // or kUnknownSymbol (RegionOf: `misc` is the sample header's, or
  // PERF_RECORD_MISC_USER for a user callchain entry).
  const std::string& FunctionOf(uint64_t ip,
                                uint16_t misc = PERF_RECORD_MISC_USER);
  CodeRegion RegionOf(uint64_t ip, uint16_t misc) const {
    return perf::RegionOf(misc, ip, vdso_);
  }

 private:
  AddressRange vdso_;
  std::unordered_map<uint64_t, std::string> cache_;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLS_SYMBOLIZER_H_
