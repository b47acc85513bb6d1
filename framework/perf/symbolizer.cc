#include "framework/perf/symbolizer.h"

#include <mutex>

#include "absl/debugging/symbolize.h"
#include "framework/perf/demangle.h"

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
    // absl::Symbolize demangles (not all: demangle.h); it fails for JIT
    // code and stripped binaries.
    if (absl::Symbolize(reinterpret_cast<void*>(ip), name, sizeof(name))) {
      it->second = DemangleIfMangled(name);
    } else {
      it->second = kUnknownSymbol;
    }
  }
  return it->second;
}

}  // namespace pmubench::perf
