// Symbolizer: in-process names for sampled addresses through Abseil's
// symbolizer (absl/debugging/symbolize.h), demangled, cached per address.
//
//   InitializeSymbolizer(argv[0]);  // once, before the first lookup
//   Symbolizer names;
//   std::string_view f = names.FunctionOf(ip);  // "Fib(int)" or "[unknown]"
//
// Not thread-safe: one per profile.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLIZER_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLIZER_H_

#include <cstdint>
#include <string>
#include <unordered_map>

namespace pmubench::perf {

inline constexpr char kUnknownSymbol[] = "[unknown]";
inline constexpr char kKernelSymbol[] = "[kernel]";

// Calls absl::InitializeSymbolizer(argv0) the first time; later calls do
// nothing.
void InitializeSymbolizer(const char* argv0);

class Symbolizer {
 public:
  // The demangled function containing `ip`, or kUnknownSymbol.
  const std::string& FunctionOf(uint64_t ip);

 private:
  std::unordered_map<uint64_t, std::string> cache_;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLIZER_H_
