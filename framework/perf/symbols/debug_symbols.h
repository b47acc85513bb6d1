// DebugSymbolOf: the function containing an address of this process, from
// the symbol table of its module's separate debug file, found by build ID
// under /usr/lib/debug/.build-id (Debian's -dbg and -dbgsym packages, e.g.
// libc6-dbg). A distribution strips a library's .symtab into that file,
// keeping only the exported .dynsym: its internal functions
// (__vfprintf_internal, __memmove_avx_unaligned_erms, ...) have no name
// in the library itself.
//
//   std::optional<std::string> f = DebugSymbolOf(ip);  // demangled
//
// Only local files are read: debuginfod is never asked. Thread-safe.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLS_DEBUG_SYMBOLS_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLS_DEBUG_SYMBOLS_H_

#include <cstdint>
#include <optional>
#include <string>

namespace pmubench::perf {

// nullopt when the address lies in no module, or no symbol of its module or
// of its debug file covers it.
std::optional<std::string> DebugSymbolOf(uint64_t address);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLS_DEBUG_SYMBOLS_H_
