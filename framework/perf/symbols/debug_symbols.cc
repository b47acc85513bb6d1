#include "framework/perf/symbols/debug_symbols.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/strings/str_format.h"
#include "framework/perf/symbols/demangle.h"
#include "framework/perf/symbols/process_modules.h"

namespace pmubench::perf {
namespace {

// libdwfl's find_debuginfo callback: the module's build ID (its
// NT_GNU_BUILD_ID note) names /usr/lib/debug/.build-id/NN/REST.debug.
// Only that local path: dwfl_standard_find_debuginfo would also ask
// debuginfod when DEBUGINFOD_URLS is set.
int BuildIdDebugFile(Dwfl_Module* module, void**, const char*, Dwarf_Addr,
                     const char*, const char*, GElf_Word, char** file_name) {
  const unsigned char* id = nullptr;
  GElf_Addr id_address = 0;
  const int size = dwfl_module_build_id(module, &id, &id_address);
  if (size < 2) return -1;
  std::string path = absl::StrFormat("/usr/lib/debug/.build-id/%02x/", id[0]);
  for (int i = 1; i < size; ++i) absl::StrAppendFormat(&path, "%02x", id[i]);
  path += ".debug";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) *file_name = strdup(path.c_str());
  return fd;
}

// One libdwfl session per process (it is not thread-safe) behind a mutex.
class DebugSymbols {
 public:
  std::optional<std::string> Find(uint64_t address) {
    std::lock_guard<std::mutex> lock(mu_);
    Dwfl_Module* module = modules_.ModuleOf(address);
    if (module == nullptr) return std::nullopt;
    // The symbol table of the module's file, or when it has only .dynsym,
    // of the file BuildIdDebugFile found (libdwfl looks there itself).
    const char* name = dwfl_module_addrname(module, address);
    if (name == nullptr) return std::nullopt;
    return DemangleIfMangled(name);
  }

 private:
  std::mutex mu_;
  ProcessModules modules_{&BuildIdDebugFile};
};

}  // namespace

std::optional<std::string> DebugSymbolOf(uint64_t address) {
  static DebugSymbols* symbols = new DebugSymbols;  // never destroyed
  return symbols->Find(address);
}

}  // namespace pmubench::perf
