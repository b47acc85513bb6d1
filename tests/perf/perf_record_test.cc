#include "framework/perf/sampling/perf_record.h"

#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

constexpr uint64_t kBasic =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

// A record as the kernel lays it out: header, then u64 words.
std::vector<std::byte> Record(uint32_t type, uint16_t misc,
                              const std::vector<uint64_t>& words) {
  perf_event_header header{type, misc,
                           static_cast<uint16_t>(8 + 8 * words.size())};
  std::vector<std::byte> bytes(header.size);
  std::memcpy(bytes.data(), &header, sizeof(header));
  std::memcpy(bytes.data() + 8, words.data(), 8 * words.size());
  return bytes;
}

TEST(PerfRecordTest, ParsesSampleFieldsInOrder) {
  const uint64_t pid_tid = (uint64_t{22} << 32) | 11;
  auto bytes = Record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                      {0x401000, pid_tid, 123456, 1000});
  ParsedRecord rec;
  ASSERT_EQ(ParseRecord(bytes, kBasic, rec), ParseStatus::kOk);
  EXPECT_EQ(rec.kind, RecordKind::kSample);
  EXPECT_EQ(rec.ip, 0x401000u);
  EXPECT_EQ(rec.pid, 11u);
  EXPECT_EQ(rec.tid, 22u);
  EXPECT_EQ(rec.time, 123456u);
  EXPECT_EQ(rec.period, 1000u);
  EXPECT_EQ(rec.size, 40u);
  EXPECT_TRUE(rec.callchain.empty());
}

TEST(PerfRecordTest, ParsesCallchainWithContextMarkers) {
  const uint64_t user = static_cast<uint64_t>(PERF_CONTEXT_USER);
  auto bytes = Record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                      {0x10, 0, 5, 7, 3, user, 0x10, 0x20});
  ParsedRecord rec;
  ASSERT_EQ(ParseRecord(bytes, kBasic | PERF_SAMPLE_CALLCHAIN, rec),
            ParseStatus::kOk);
  ASSERT_EQ(rec.callchain.size(), 3u);
  EXPECT_TRUE(IsCallchainContext(rec.callchain[0]));
  EXPECT_EQ(rec.callchain[2], 0x20u);
}

TEST(PerfRecordTest, CallchainLongerThanRecordIsMalformed) {
  auto bytes = Record(PERF_RECORD_SAMPLE, 0, {0x10, 0, 5, 7, 1000, 0x10});
  ParsedRecord rec;
  EXPECT_EQ(ParseRecord(bytes, kBasic | PERF_SAMPLE_CALLCHAIN, rec),
            ParseStatus::kMalformed);
}

TEST(PerfRecordTest, SampleShorterThanItsTypeIsMalformed) {
  auto bytes = Record(PERF_RECORD_SAMPLE, 0, {0x10, 0});
  ParsedRecord rec;
  EXPECT_EQ(ParseRecord(bytes, kBasic, rec), ParseStatus::kMalformed);
}

TEST(PerfRecordTest, HeaderSizeBeyondBytesIsMalformed) {
  auto bytes = Record(PERF_RECORD_SAMPLE, 0, {1, 2, 3, 4});
  bytes.resize(bytes.size() - 1);
  ParsedRecord rec;
  EXPECT_EQ(ParseRecord(bytes, kBasic, rec), ParseStatus::kMalformed);
  EXPECT_EQ(ParseRecord({}, kBasic, rec), ParseStatus::kMalformed);
}

TEST(PerfRecordTest, UnsupportedSampleTypeIsRefused) {
  auto bytes = Record(PERF_RECORD_SAMPLE, 0, {1, 2, 3, 4});
  ParsedRecord rec;
  EXPECT_EQ(ParseRecord(bytes, kBasic | PERF_SAMPLE_RAW, rec),
            ParseStatus::kUnsupportedSampleType);
}

TEST(PerfRecordTest, ParsesLostAndThrottle) {
  ParsedRecord rec;
  ASSERT_EQ(ParseRecord(Record(PERF_RECORD_LOST, 0, {9, 17}), kBasic, rec),
            ParseStatus::kOk);
  EXPECT_EQ(rec.kind, RecordKind::kLost);
  EXPECT_EQ(rec.lost, 17u);
  ASSERT_EQ(
      ParseRecord(Record(PERF_RECORD_THROTTLE, 0, {55, 1, 2}), kBasic, rec),
      ParseStatus::kOk);
  EXPECT_EQ(rec.kind, RecordKind::kThrottle);
  EXPECT_EQ(rec.time, 55u);
  ASSERT_EQ(
      ParseRecord(Record(PERF_RECORD_UNTHROTTLE, 0, {56, 1, 2}), kBasic, rec),
      ParseStatus::kOk);
  EXPECT_EQ(rec.kind, RecordKind::kUnthrottle);
  ASSERT_EQ(ParseRecord(Record(PERF_RECORD_MMAP2, 0, {1, 2}), kBasic, rec),
            ParseStatus::kOk);
  EXPECT_EQ(rec.kind, RecordKind::kOther);
}

// Random bytes (and random record headers over random bodies) must never
// read out of bounds: run under ASan to make that an assertion.
TEST(PerfRecordTest, FuzzRandomBytesNeverCrash) {
  std::mt19937_64 rng(42);
  ParsedRecord rec;
  size_t ok = 0;
  for (int i = 0; i < 200000; ++i) {
    std::vector<std::byte> bytes(rng() % 96);
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    if (bytes.size() >= 8 && (i & 1)) {  // plausible header, random body
      perf_event_header h{static_cast<uint32_t>(rng() % 16), 0,
                          static_cast<uint16_t>(rng() % (bytes.size() + 8))};
      std::memcpy(bytes.data(), &h, sizeof(h));
    }
    const uint64_t type = kBasic | (i % 3 == 0 ? PERF_SAMPLE_CALLCHAIN : 0);
    if (ParseRecord(bytes, type, rec) == ParseStatus::kOk) {
      ++ok;
      EXPECT_LE(rec.size, bytes.size());
      EXPECT_LE(8 * rec.callchain.size(), rec.size);
    }
  }
  EXPECT_GT(ok, 0u);  // the plausible headers did parse sometimes
}

}  // namespace
}  // namespace pmubench::perf
