// ProcessModules: a libdwfl session over this process's mapped files (the
// modules of /proc/self/maps, dwfl_linux_proc_report), to find the module
// an address lies in. Source lines (source_lines.cc) and debug-file symbols
// (debug_symbols.cc) each keep one, with their own find_debuginfo callback.
//
//   ProcessModules modules(&MyFindDebugInfo);
//   Dwfl_Module* m = modules.ModuleOf(ip);  // nullptr: in no mapped file
//
// libdwfl is not thread-safe: the owner serializes every call.
#ifndef PMUBENCH_FRAMEWORK_PERF_SYMBOLS_PROCESS_MODULES_H_
#define PMUBENCH_FRAMEWORK_PERF_SYMBOLS_PROCESS_MODULES_H_

#include <elfutils/libdwfl.h>

#include <cstdint>

namespace pmubench::perf {

class ProcessModules {
 public:
  // libdwfl's Dwfl_Callbacks::find_debuginfo: what to open when a module's
  // own file lacks what is asked (DWARF, a full symbol table).
  using FindDebugInfo = int (*)(Dwfl_Module*, void**, const char*, Dwarf_Addr,
                                const char*, const char*, GElf_Word, char**);

  explicit ProcessModules(FindDebugInfo find_debuginfo);
  ~ProcessModules();
  ProcessModules(const ProcessModules&) = delete;
  ProcessModules& operator=(const ProcessModules&) = delete;

  // nullptr when libdwfl could not start.
  Dwfl* dwfl() const { return dwfl_; }

  // The module `address` lies in; when none does, the modules are reported
  // again once (a library dlopen()ed since), keeping those already loaded.
  Dwfl_Module* ModuleOf(uint64_t address);

 private:
  void Report(bool add);

  Dwfl_Callbacks callbacks_;  // libdwfl keeps a pointer to it
  Dwfl* dwfl_ = nullptr;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYMBOLS_PROCESS_MODULES_H_
