#include "framework/perf/symbols/symbolizer.h"

#include <mutex>

#include "absl/debugging/symbolize.h"
#include "framework/perf/symbols/debug_symbols.h"
#include "framework/perf/symbols/demangle.h"

namespace pmubench::perf {

void InitializeSymbolizer(const char* argv0) {
  static std::once_flag once;
  std::call_once(once, [argv0] { absl::InitializeSymbolizer(argv0); });
}

const std::string& Symbolizer::FunctionOf(uint64_t ip, uint16_t misc) {
  static const std::string kKernel = kKernelSymbol;
  static const std::string kVdso = kVdsoSymbol;
  switch (RegionOf(ip, misc)) {
    case CodeRegion::kKernel:
      return kKernel;
    case CodeRegion::kVdso:
      return kVdso;
    case CodeRegion::kUser:
      break;
  }
  auto [it, inserted] = cache_.try_emplace(ip);
  if (inserted) {
    char name[1024];
    // absl::Symbolize demangles (not all: demangle.h); it reads only the
    // module's own symbol tables, so it fails for a library's internal
    // functions (their names are in its debug file: debug_symbols.h), JIT
    // code and stripped binaries.
    if (absl::Symbolize(reinterpret_cast<void*>(ip), name, sizeof(name))) {
      it->second = DemangleIfMangled(name);
    } else {
      it->second = DebugSymbolOf(ip).value_or(kUnknownSymbol);
    }
  }
  return it->second;
}

}  // namespace pmubench::perf
