#include "framework/perf/sampling/perf_record.h"

#include <cstring>

namespace pmubench::perf {
namespace {

// Reads u64 fields from a record body, refusing any read past its end.
class FieldReader {
 public:
  explicit FieldReader(std::span<const std::byte> body) : body_(body) {}

  bool Read(uint64_t& value) {
    if (body_.size() - pos_ < sizeof(value)) return false;
    std::memcpy(&value, body_.data() + pos_, sizeof(value));
    pos_ += sizeof(value);
    return true;
  }
  size_t remaining_words() const {
    return (body_.size() - pos_) / sizeof(uint64_t);
  }

 private:
  std::span<const std::byte> body_;
  size_t pos_ = 0;
};

// PERF_RECORD_SAMPLE's fields in the order perf_event_open(2) lists them.
bool ParseSample(FieldReader& in, uint64_t sample_type, ParsedRecord& out) {
  uint64_t word = 0;
  if ((sample_type & PERF_SAMPLE_IDENTIFIER) && !in.Read(word)) return false;
  if ((sample_type & PERF_SAMPLE_IP) && !in.Read(out.ip)) return false;
  if (sample_type & PERF_SAMPLE_TID) {
    if (!in.Read(word)) return false;
    out.pid = static_cast<uint32_t>(word);  // u32 pid, tid: little end first
    out.tid = static_cast<uint32_t>(word >> 32);
  }
  if ((sample_type & PERF_SAMPLE_TIME) && !in.Read(out.time)) return false;
  for (uint64_t bit :
       {uint64_t{PERF_SAMPLE_ADDR}, uint64_t{PERF_SAMPLE_ID},
        uint64_t{PERF_SAMPLE_STREAM_ID}, uint64_t{PERF_SAMPLE_CPU}}) {
    if ((sample_type & bit) && !in.Read(word)) return false;
  }
  if ((sample_type & PERF_SAMPLE_PERIOD) && !in.Read(out.period)) return false;
  if (sample_type & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = 0;
    if (!in.Read(nr) || nr > in.remaining_words()) return false;
    out.callchain.resize(nr);
    for (uint64_t& ip : out.callchain) in.Read(ip);
  }
  return true;
}

}  // namespace

ParseStatus ParseRecord(std::span<const std::byte> bytes, uint64_t sample_type,
                        ParsedRecord& out) {
  perf_event_header header;
  if (bytes.size() < sizeof(header)) return ParseStatus::kMalformed;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (header.size < sizeof(header) || header.size > bytes.size()) {
    return ParseStatus::kMalformed;
  }
  out.kind = RecordKind::kOther;
  out.type = header.type;
  out.misc = header.misc;
  out.size = header.size;
  out.ip = out.time = out.period = out.lost = 0;
  out.pid = out.tid = 0;
  out.callchain.clear();
  FieldReader in(bytes.subspan(sizeof(header), header.size - sizeof(header)));
  uint64_t word = 0;
  switch (header.type) {
    case PERF_RECORD_SAMPLE:
      if ((sample_type & ~kParsableSampleType) != 0) {
        return ParseStatus::kUnsupportedSampleType;
      }
      out.kind = RecordKind::kSample;
      return ParseSample(in, sample_type, out) ? ParseStatus::kOk
                                               : ParseStatus::kMalformed;
    case PERF_RECORD_LOST:  // u64 id; u64 lost; sample_id
      out.kind = RecordKind::kLost;
      return in.Read(word) && in.Read(out.lost) ? ParseStatus::kOk
                                                : ParseStatus::kMalformed;
    case PERF_RECORD_THROTTLE:  // u64 time; u64 id; u64 stream_id; sample_id
    case PERF_RECORD_UNTHROTTLE:
      out.kind = header.type == PERF_RECORD_THROTTLE ? RecordKind::kThrottle
                                                     : RecordKind::kUnthrottle;
      return in.Read(out.time) ? ParseStatus::kOk : ParseStatus::kMalformed;
    default:
      return ParseStatus::kOk;  // MMAP2, COMM, ...: skipped by size
  }
}

}  // namespace pmubench::perf
