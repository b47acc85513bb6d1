// SourceLineOf: the source file and line of an address of this process, from
// the DWARF line table of the module it lies in (libdwfl from elfutils,
// package libdw-dev).
//
//   std::optional<SourceLine> at = SourceLineOf(sample.ip);
//   if (at) std::cout << at->file << ":" << at->line;  // "/src/fib.cc:12"
//   at = FunctionLineOf(call);  // the line of the function holding `call`
//
// Modules are read from /proc/self/maps on the first call, and again when an
// address lies in none of them (a library dlopen()ed since). Only a module's
// own DWARF is read (a binary built with -g): no separate debug files and no
// debuginfod downloads in the middle of a benchmark run. Thread-safe.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLS_SOURCE_LINES_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLS_SOURCE_LINES_H_

#include <cstdint>
#include <optional>
#include <string>

namespace pmubench::perf {

struct SourceLine {
  // As the line table names it, joined to the compile directory: absolute,
  // or relative to the workspace for a Bazel build ("benches/kernel.cc").
  std::string file;
  int line = 0;
};

// nullopt when the address lies in no module, or its module has no line
// table for it (no -g, JIT code, a stripped library).
std::optional<SourceLine> SourceLineOf(uint64_t address);

// The line of the function the symbol table names for `address` (its
// out-of-line function) that `address` belongs to: where code inlined into
// that function holds it, the line that called the outermost inlined
// function (its DW_AT_call_file and DW_AT_call_line, as `addr2line -i`
// prints last), else SourceLineOf's. So an allocation that libstdc++'s
// inlined std::string constructor makes in Parse() is at Parse()'s own
// line that made the string, not at bits/new_allocator.h's.
std::optional<SourceLine> FunctionLineOf(uint64_t address);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLS_SOURCE_LINES_H_
