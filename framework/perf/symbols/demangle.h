// Demangle: the C++ runtime's demangler for the names Abseil's symbolizer
// leaves mangled. Debian's Abseil 20220623 does not demangle ABI tags
// ("B5cxx11", as on std::string-returning functions of the new ABI) and
// returns such a name as it found it; abi::__cxa_demangle (<cxxabi.h>) does.
//
//   DemangleIfMangled("_Z3Fibi")  // "Fib(int)"
//   DemangleIfMangled("main")     // "main": not a mangled name
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLS_DEMANGLE_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLS_DEMANGLE_H_

#include <string>

namespace pmubench::perf {

// `name` demangled when it starts with "_Z" and the runtime can demangle it
// (clone suffixes such as ".cold" become " [clone .cold]"); else `name`.
std::string DemangleIfMangled(const std::string& name);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLS_DEMANGLE_H_
