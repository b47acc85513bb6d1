#include "framework/perf/symbols/source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
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

// A file name as the line table gives it, made the name a reader knows: a
// relative name is relative to the compile directory (DW_AT_comp_dir):
// "../../src/f.cc" built in /build/dir is "/src/f.cc"; Bazel maps its
// execution root to /proc/self/cwd in debug info (reproducible builds), and
// what follows is the path in the workspace.
std::string FileName(const char* file, const char* comp_dir) {
  std::filesystem::path path(file);
  if (path.is_relative() && comp_dir != nullptr) path = comp_dir / path;
  std::string name = path.lexically_normal().string();
  constexpr std::string_view kBazelRoot = "/proc/self/cwd/";
  if (name.starts_with(kBazelRoot)) name.erase(0, kBazelRoot.size());
  return name;
}

// The call site (DW_AT_call_file, DW_AT_call_line) of the outermost
// DW_TAG_inlined_subroutine among `scopes` (innermost first, as
// dwarf_getscopes gives them), in the files of compile unit `cu`.
std::optional<SourceLine> OutermostCallSite(Dwarf_Die* cu, Dwarf_Die* scopes,
                                            int count) {
  int outer = -1;
  for (int i = 0; i < count; ++i) {
    if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) outer = i;
  }
  Dwarf_Attribute attr;
  Dwarf_Word file = 0, line = 0;
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (outer < 0 ||
      dwarf_formudata(dwarf_attr(&scopes[outer], DW_AT_call_file, &attr),
                      &file) != 0 ||
      dwarf_formudata(dwarf_attr(&scopes[outer], DW_AT_call_line, &attr),
                      &line) != 0 ||
      line == 0 || dwarf_getsrcfiles(cu, &files, &file_count) != 0 ||
      file >= file_count) {
    return std::nullopt;
  }
  const char* name = dwarf_filesrc(files, file, nullptr, nullptr);
  if (name == nullptr) return std::nullopt;
  const char* comp_dir =
      dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
  return SourceLine{FileName(name, comp_dir), static_cast<int>(line)};
}

// libdwfl is not thread-safe: one session per process behind a mutex, its
// answers cached per address.
class LineTables {
 public:
  std::optional<SourceLine> Find(uint64_t address) {
    return Cached(lines_, address, &LineTables::Look);
  }

  std::optional<SourceLine> FindCaller(uint64_t address) {
    return Cached(callers_, address, &LineTables::LookCaller);
  }

 private:
  using Cache = std::unordered_map<uint64_t, std::optional<SourceLine>>;

  std::optional<SourceLine> Cached(
      Cache& cache, uint64_t address,
      std::optional<SourceLine> (LineTables::*look)(uint64_t)) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = cache.try_emplace(address);
    if (inserted) it->second = (this->*look)(address);
    return it->second;
  }

  std::optional<SourceLine> Look(uint64_t address) {
    if (modules_.ModuleOf(address) == nullptr) return std::nullopt;
    Dwfl_Line* row = dwfl_getsrc(modules_.dwfl(), address);
    if (row == nullptr) return std::nullopt;
    int line = 0;
    const char* file =
        dwfl_lineinfo(row, nullptr, &line, nullptr, nullptr, nullptr);
    if (file == nullptr || line <= 0) return std::nullopt;
    return SourceLine{FileName(file, dwfl_line_comp_dir(row)), line};
  }

  std::optional<SourceLine> LookCaller(uint64_t address) {
    Dwfl_Module* module = modules_.ModuleOf(address);
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = module == nullptr
                        ? nullptr
                        : dwfl_module_addrdie(module, address, &bias);
    // dwarf_getscopes follows an inlined instance into its abstract
    // origin's scopes; the chain of inlined instances is the innermost
    // scope's own nesting in the tree (dwarf_getscopes_die), as
    // eu-addr2line -i reads it. The arrays are the caller's to free.
    Dwarf_Die* scopes = nullptr;
    int count =
        cu == nullptr ? 0 : dwarf_getscopes(cu, address - bias, &scopes);
    std::optional<SourceLine> site;
    if (count > 0) {
      Dwarf_Die innermost = scopes[0];
      std::free(scopes);
      scopes = nullptr;
      count = dwarf_getscopes_die(&innermost, &scopes);
      if (count > 0) site = OutermostCallSite(cu, scopes, count);
    }
    std::free(scopes);
    return site ? site : Look(address);
  }

  std::mutex mu_;
  ProcessModules modules_{&NoSeparateDebugInfo};
  Cache lines_;    // SourceLineOf's answers
  Cache callers_;  // FunctionLineOf's
};

LineTables& Tables() {
  static LineTables* tables = new LineTables;  // never destroyed: used at exit
  return *tables;
}

}  // namespace

std::optional<SourceLine> SourceLineOf(uint64_t address) {
  return Tables().Find(address);
}

std::optional<SourceLine> FunctionLineOf(uint64_t address) {
  return Tables().FindCaller(address);
}

}  // namespace pmubench::perf
