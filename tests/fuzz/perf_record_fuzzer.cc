// libFuzzer target: ParseRecord, the parser of the PERF_RECORD_* records a
// sampling event writes into its ring buffer. The first 8 bytes of the
// input pick the sample_type (any bits: unsupported ones must be refused),
// the rest is a stream of records parsed one after another, as the sampler
// drains its ring. A parsed record's size covers its header and fits the
// bytes it was given; ASan reports any read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "framework/perf/sampling/perf_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using pmubench::perf::ParsedRecord;
  using pmubench::perf::ParseStatus;
  uint64_t sample_type = 0;
  const size_t head = size < sizeof(sample_type) ? size : sizeof(sample_type);
  std::memcpy(&sample_type, data, head);
  // Half the inputs use only parsable bits, so the sample bodies are
  // reached, not refused as unsupported.
  if (sample_type & 1) sample_type &= pmubench::perf::kParsableSampleType;
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data),
                                   size);
  bytes = bytes.subspan(head);
  ParsedRecord record;
  while (!bytes.empty()) {
    if (ParseRecord(bytes, sample_type, record) != ParseStatus::kOk) break;
    if (record.size < sizeof(perf_event_header) || record.size > bytes.size()) {
      std::abort();
    }
    bytes = bytes.subspan(record.size);
  }
  return 0;
}
