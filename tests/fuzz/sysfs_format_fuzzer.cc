// libFuzzer target: PmuRegistry::ParseFormat, the parser of a sysfs
// format/<term> file ("config:0-7,21"). An accepted field has at least one
// range, each within one of the three config words, bits 0..63, lo <= hi.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "framework/perf/events/pmu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<pmubench::perf::FormatField> field =
      pmubench::perf::PmuRegistry::ParseFormat(text);
  if (!field.ok()) return 0;
  if (field->ranges.empty()) std::abort();
  for (const pmubench::perf::BitRange& r : field->ranges) {
    if (r.word < 0 || r.word > 2 || r.lo < 0 || r.hi > 63 || r.lo > r.hi) {
      std::abort();
    }
  }
  return 0;
}
