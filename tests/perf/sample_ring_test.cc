#include "framework/perf/sampling/sample_ring.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

// A synthetic ring: a control page and a data area of `size` bytes, written
// as the kernel would (records at data_head, head published after).
class FakeRing {
 public:
  explicit FakeRing(size_t size) : data_(size), scratch_(1 << 16) {}

  void Write(uint32_t type, uint64_t word_value, size_t words) {
    perf_event_header h{type, 0, static_cast<uint16_t>(8 + 8 * words)};
    std::vector<std::byte> rec(h.size);
    std::memcpy(rec.data(), &h, 8);
    for (size_t i = 0; i < words; ++i) {
      std::memcpy(rec.data() + 8 + 8 * i, &word_value, 8);
    }
    for (size_t i = 0; i < rec.size(); ++i) {
      data_[(meta_.data_head + i) % data_.size()] = rec[i];
    }
    meta_.data_head += rec.size();
  }
  DrainResult Drain(std::vector<std::vector<std::byte>>& out) {
    return DrainRing(&meta_, data_, scratch_,
                     [&](std::span<const std::byte> r) {
                       out.emplace_back(r.begin(), r.end());
                     });
  }
  perf_event_mmap_page meta_{};
  std::vector<std::byte> data_;
  std::vector<std::byte> scratch_;
};

uint64_t Word(const std::vector<std::byte>& rec, size_t i) {
  uint64_t v;
  std::memcpy(&v, rec.data() + 8 + 8 * i, 8);
  return v;
}

TEST(SampleRingTest, ReadsRecordsAndAdvancesTail) {
  FakeRing ring(256);
  ring.Write(PERF_RECORD_SAMPLE, 1, 4);
  ring.Write(PERF_RECORD_LOST, 2, 2);
  std::vector<std::vector<std::byte>> got;
  EXPECT_EQ(ring.Drain(got).records, 2u);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].size(), 40u);
  EXPECT_EQ(Word(got[1], 1), 2u);
  EXPECT_EQ(ring.meta_.data_tail, ring.meta_.data_head);
  got.clear();
  EXPECT_EQ(ring.Drain(got).records, 0u);  // nothing new
}

TEST(SampleRingTest, RecordWrappingTheEndArrivesWhole) {
  FakeRing ring(128);
  std::vector<std::vector<std::byte>> got;
  for (uint64_t i = 0; i < 20; ++i) {  // 48-byte records over 128 bytes
    ring.Write(PERF_RECORD_SAMPLE, 0x1111111111111111ull * (i % 15 + 1), 5);
    got.clear();
    ASSERT_EQ(ring.Drain(got).records, 1u);
    ASSERT_EQ(got[0].size(), 48u);
    for (size_t w = 0; w < 5; ++w) {
      EXPECT_EQ(Word(got[0], w), 0x1111111111111111ull * (i % 15 + 1))
          << "record " << i << " word " << w;
    }
  }
}

TEST(SampleRingTest, ImpossibleHeaderSkipsToHeadInsteadOfLooping) {
  FakeRing ring(128);
  ring.Write(PERF_RECORD_SAMPLE, 0, 0);             // size 8: fine
  perf_event_header bad{PERF_RECORD_SAMPLE, 0, 0};  // size 0 would never end
  std::memcpy(ring.data_.data() + 8, &bad, 8);
  ring.meta_.data_head += 8;
  std::vector<std::vector<std::byte>> got;
  DrainResult r = ring.Drain(got);
  EXPECT_EQ(r.records, 1u);
  EXPECT_EQ(r.skipped_bytes, 8u);
  EXPECT_EQ(ring.meta_.data_tail, ring.meta_.data_head);
}

}  // namespace
}  // namespace pmubench::perf
