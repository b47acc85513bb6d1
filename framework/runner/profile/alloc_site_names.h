// A profiled batch's allocation sites (framework/runner/alloc/alloc_sites.h)
// named: the function and source line that called the allocator (a line of
// that function, where the call was inlined into it: FunctionLineOf in
// framework/perf/symbols/source_lines.h), and where
// that function is the standard library's (std::, __gnu_cxx::), the first
// function above it that is not (up to kAllocSiteAbove frames up; the
// last one looked at if all are), so
//
//   std::vector<NamedAllocSite> sites = NameAllocSites(counts);
//
// gives {"std::__cxx11::basic_string<>::_M_create()", ...} above which is
// {"MakeString()", "/src/cases.cc", 12} for an append that libstdc++.so
// grows out of line. Sites that name the same places are summed (a caller
// that is not the standard library's: whatever called it).
// A return address is named by the byte before it (the call instruction).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PROFILE_ALLOC_SITE_NAMES_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PROFILE_ALLOC_SITE_NAMES_H_

#include <string>
#include <vector>

#include "framework/runner/alloc/alloc_sites.h"

namespace pmubench {

struct CodePlace {
  std::string function;  // "" for none
  std::string file;      // "" when the module has no line table
  int line = 0;
};

struct NamedAllocSite {
  CodePlace caller;
  CodePlace above;  // function "" unless the caller is the standard library's
  double allocs = 0;
  double bytes = 0;
};

// Largest count first. The table's dropped allocations (caller 0) are one
// site whose function is "[sites beyond the table]".
std::vector<NamedAllocSite> NameAllocSites(
    const std::vector<internal::AllocSiteCount>& counts);

// Whether `function` is the C++ standard library's (its name in std:: or
// __gnu_cxx::).
bool IsStandardLibrary(const std::string& function);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PROFILE_ALLOC_SITE_NAMES_H_
