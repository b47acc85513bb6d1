#include "framework/perf/symbols/source_lines.h"

#include <elfutils/libdwfl.h>

#include <filesystem>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "framework/perf/symbols/process_modules.h"

namespace pmubench::perf {
namespace {

// libdwfl's find_debuginfo callback, asked only when a module's own file has
// no DWARF: finds nothing, so no separate debug file is searched and
// debuginfod (which dwfl_standard_find_debuginfo consults when
// DEBUGINFOD_URLS is set) is never asked over the network.
int NoSeparateDebugInfo(Dwfl_Module*, void**, const char*, Dwarf_Addr,
                        const char*, const char*, GElf_Word, char**) {
  return -1;
}

// libdwfl is not thread-safe: one session per process behind a mutex, its
// answers cached per address.
class LineTables {
 public:
  std::optional<SourceLine> Find(uint64_t address) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = cache_.try_emplace(address);
    if (inserted) it->second = Look(address);
    return it->second;
  }

 private:
  std::optional<SourceLine> Look(uint64_t address) {
    if (modules_.ModuleOf(address) == nullptr) return std::nullopt;
    Dwfl_Line* row = dwfl_getsrc(modules_.dwfl(), address);
    if (row == nullptr) return std::nullopt;
    int line = 0;
    const char* file =
        dwfl_lineinfo(row, nullptr, &line, nullptr, nullptr, nullptr);
    if (file == nullptr || line <= 0) return std::nullopt;
    // A relative name is relative to the compile directory (DW_AT_comp_dir):
    // "../../src/f.cc" built in /build/dir is "/src/f.cc".
    std::filesystem::path path(file);
    if (path.is_relative()) {
      if (const char* dir = dwfl_line_comp_dir(row)) path = dir / path;
    }
    std::string name = path.lexically_normal().string();
    // Bazel maps its execution root to /proc/self/cwd in debug info
    // (reproducible builds); what follows is the path in the workspace.
    constexpr std::string_view kBazelRoot = "/proc/self/cwd/";
    if (name.starts_with(kBazelRoot)) name.erase(0, kBazelRoot.size());
    return SourceLine{std::move(name), line};
  }

  std::mutex mu_;
  ProcessModules modules_{&NoSeparateDebugInfo};
  std::unordered_map<uint64_t, std::optional<SourceLine>> cache_;
};

}  // namespace

std::optional<SourceLine> SourceLineOf(uint64_t address) {
  static LineTables* tables = new LineTables;  // never destroyed: used at exit
  return tables->Find(address);
}

}  // namespace pmubench::perf
