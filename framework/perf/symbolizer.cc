#include "framework/perf/symbolizer.h"

#include <mutex>

#include "absl/debugging/symbolize.h"

namespace pmubench::perf {

void InitializeSymbolizer(const char* argv0) {
  static std::once_flag once;
  std::call_once(once, [argv0] { absl::InitializeSymbolizer(argv0); });
}

const std::string& Symbolizer::FunctionOf(uint64_t ip) {
  auto [it, inserted] = cache_.try_emplace(ip);
  if (inserted) {
    char name[1024];
    // absl::Symbolize demangles; it fails for JIT code and stripped binaries.
    if (absl::Symbolize(reinterpret_cast<void*>(ip), name, sizeof(name))) {
      it->second = name;
    } else {
      it->second = kUnknownSymbol;
    }
  }
  return it->second;
}

}  // namespace pmubench::perf
