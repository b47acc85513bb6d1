#include "framework/perf/symbols/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace pmubench::perf {

std::string DemangleIfMangled(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  // Returns a malloc'd buffer (status 0), or null: -2 not a valid mangled
  // name, -1 out of memory.
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || demangled == nullptr) return name;
  return demangled.get();
}

}  // namespace pmubench::perf
