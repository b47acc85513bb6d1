#include "framework/perf/symbols/process_modules.h"

#include <unistd.h>

namespace pmubench::perf {

ProcessModules::ProcessModules(FindDebugInfo find_debuginfo)
    : callbacks_{.find_elf = dwfl_linux_proc_find_elf,
                 .find_debuginfo = find_debuginfo,
                 .section_address = dwfl_offline_section_address,
                 .debuginfo_path = nullptr} {
  dwfl_ = dwfl_begin(&callbacks_);
  if (dwfl_ != nullptr) Report(/*add=*/false);
}

ProcessModules::~ProcessModules() { dwfl_end(dwfl_); }

Dwfl_Module* ProcessModules::ModuleOf(uint64_t address) {
  if (dwfl_ == nullptr) return nullptr;
  Dwfl_Module* module = dwfl_addrmodule(dwfl_, address);
  if (module == nullptr) {
    Report(/*add=*/true);
    module = dwfl_addrmodule(dwfl_, address);
  }
  return module;
}

void ProcessModules::Report(bool add) {
  if (add) {
    dwfl_report_begin_add(dwfl_);
  } else {
    dwfl_report_begin(dwfl_);
  }
  dwfl_linux_proc_report(dwfl_, getpid());
  dwfl_report_end(dwfl_, nullptr, nullptr);
}

}  // namespace pmubench::perf
