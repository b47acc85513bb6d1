#include "framework/runner/profile/alloc_site_names.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "framework/perf/symbols/source_lines.h"
#include "framework/perf/symbols/symbolizer.h"

namespace pmubench {
namespace {

CodePlace PlaceOf(perf::Symbolizer& names, uintptr_t return_address) {
  const uint64_t call = return_address - 1;
  CodePlace place{names.FunctionOf(call), "", 0};
  if (std::optional<perf::SourceLine> at = perf::FunctionLineOf(call)) {
    place.file = at->file;
    place.line = at->line;
  }
  return place;
}

auto Key(const NamedAllocSite& s) {
  return std::tie(s.caller.function, s.caller.file, s.caller.line,
                  s.above.function, s.above.file, s.above.line);
}

}  // namespace

bool IsStandardLibrary(const std::string& function) {
  return function.starts_with("std::") || function.starts_with("__gnu_cxx::");
}

std::vector<NamedAllocSite> NameAllocSites(
    const std::vector<internal::AllocSiteCount>& counts) {
  perf::Symbolizer names;
  std::vector<NamedAllocSite> out;
  for (const internal::AllocSiteCount& c : counts) {
    NamedAllocSite site{
        {"[sites beyond the table]", "", 0}, {}, c.allocs, c.bytes};
    if (c.caller != 0) site.caller = PlaceOf(names, c.caller);
    // The first frame above that is not the standard library's.
    for (int k = 0; k < internal::kAllocSiteAbove && c.above[k] != 0 &&
                    IsStandardLibrary(site.caller.function);
         ++k) {
      site.above = PlaceOf(names, c.above[k]);
      if (!IsStandardLibrary(site.above.function)) break;
    }
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& s) {
      return Key(s) == Key(site);
    });
    if (same == out.end()) {
      out.push_back(std::move(site));
    } else {
      same->allocs += site.allocs;
      same->bytes += site.bytes;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.allocs > b.allocs;
  });
  return out;
}

}  // namespace pmubench
