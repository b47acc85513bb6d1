// PerfRecord: a bounds-checked parser of the records a sampling event writes
// into its ring buffer (linux/perf_event.h, enum perf_event_type; "MMAP
// layout" in perf_event_open(2)). Pure: it reads bytes, never the kernel.
//
//   ParsedRecord rec;
//   if (ParseRecord(bytes, kSampleType, rec) == ParseStatus::kOk &&
//       rec.kind == RecordKind::kSample) Use(rec.ip);
//
// Any byte sequence is safe input: a header whose size is smaller than the
// header, larger than the bytes given, or a body shorter than the fields the
// sample_type promises yields kMalformed, never a read out of bounds.
#ifndef PMUBENCH_FRAMEWORK_PERF_SAMPLING_PERF_RECORD_H_
#define PMUBENCH_FRAMEWORK_PERF_SAMPLING_PERF_RECORD_H_

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pmubench::perf {

// The sample_type bits this parser understands; each is one u64 (TID: two
// u32) or, for CALLCHAIN, a u64 count then that many u64 addresses.
inline constexpr uint64_t kParsableSampleType =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
    PERF_SAMPLE_CALLCHAIN;

enum class RecordKind { kSample, kLost, kThrottle, kUnthrottle, kOther };

enum class ParseStatus { kOk, kMalformed, kUnsupportedSampleType };

struct ParsedRecord {
  RecordKind kind = RecordKind::kOther;
  uint32_t type = 0;  // perf_event_header.type
  uint16_t misc = 0;  // perf_event_header.misc (PERF_RECORD_MISC_*)
  uint16_t size = 0;  // perf_event_header.size, header included
  // PERF_RECORD_SAMPLE (fields absent from sample_type stay 0).
  uint64_t ip = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time = 0;  // also PERF_RECORD_THROTTLE/UNTHROTTLE's time
  uint64_t period = 0;
  // PERF_SAMPLE_CALLCHAIN: innermost first; PERF_CONTEXT_* markers kept
  // (values >= PERF_CONTEXT_MAX). Reused between calls: no allocation once
  // it has grown to the longest chain.
  std::vector<uint64_t> callchain;
  // PERF_RECORD_LOST: how many records the kernel dropped.
  uint64_t lost = 0;
};

// Parses the one record at the start of `bytes` (header included). On kOk
// `out.size` is the record's length; the caller advances by it.
ParseStatus ParseRecord(std::span<const std::byte> bytes, uint64_t sample_type,
                        ParsedRecord& out);

// True for the PERF_CONTEXT_* markers a callchain interleaves with
// addresses (PERF_CONTEXT_USER, PERF_CONTEXT_KERNEL, ...).
inline bool IsCallchainContext(uint64_t value) {
  return value >= static_cast<uint64_t>(PERF_CONTEXT_MAX);
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SAMPLING_PERF_RECORD_H_
