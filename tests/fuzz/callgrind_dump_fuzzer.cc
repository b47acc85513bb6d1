// libFuzzer target: ParseCallgrindDump, the reader of the dump files
// callgrind writes for --pmubench_simulate. An accepted dump has one total
// per event.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "framework/runner/simulate/callgrind.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<pmubench::internal::CallgrindDump> dump =
      pmubench::internal::ParseCallgrindDump(text, "fuzz.out");
  if (!dump.ok()) return 0;
  if (dump->events.empty() || dump->totals.size() != dump->events.size()) {
    std::abort();
  }
  for (const std::string& event : dump->events) (void)dump->Total(event);
  return 0;
}
