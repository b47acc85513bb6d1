// The mmap-page self-read against a synthetic perf_event_mmap_page and a fake
// counter instruction: sign extension and wrap, offsets, time extension, the
// index-0 and no-rdpmc fallbacks, and the seqlock under a concurrent writer.
#include "framework/perf/counting/mmap_reader.h"

#include <linux/perf_event.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "framework/perf/counting/counter_group.h"
#include "framework/perf/counting/counter_math.h"
#include "gtest/gtest.h"
#include "tests/perf/same_cpu_on_arm64.h"

namespace pmubench::perf {
namespace {

// A "hardware counter" the test controls; records how it was called.
struct FakeCounter {
  uint64_t* raw;  // what the rdpmc instruction would return
  int* calls;
  uint32_t* last_index;  // the counter number passed (page index - 1)
  uint64_t operator()(uint32_t counter) const {
    ++*calls;
    *last_index = counter;
    return *raw;
  }
};

struct FakeTimestamp {
  uint64_t value;
  int* calls;
  uint64_t operator()() const {
    ++*calls;
    return value;
  }
};

class MmapReaderTest : public ::testing::Test {
 protected:
  MmapReaderTest() {
    page_.lock = 2;
    page_.index = 3;  // hardware counter 2
    page_.cap_user_rdpmc = 1;
    page_.pmc_width = 48;
    page_.time_enabled = 5000;
    page_.time_running = 5000;
  }

  std::optional<MmapReading> Read() {
    return ReadMmapPage(&page_, FakeCounter{&raw_, &counter_calls_, &index_},
                        FakeTimestamp{tsc_, &tsc_calls_});
  }

  perf_event_mmap_page page_{};
  uint64_t raw_ = 0;
  uint64_t tsc_ = 0;
  int counter_calls_ = 0;
  int tsc_calls_ = 0;
  uint32_t index_ = 0;
};

TEST_F(MmapReaderTest, AddsTheCounterToTheOffsetAndPassesIndexMinusOne) {
  page_.offset = 1000;
  raw_ = 234;
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, 1234u);
  EXPECT_EQ(index_, 2u);
  EXPECT_EQ(counter_calls_, 1);
  EXPECT_EQ(r->time_enabled, 5000u);
  EXPECT_EQ(r->time_running, 5000u);
  EXPECT_EQ(tsc_calls_, 0);  // enabled == running: no time extension
}

TEST_F(MmapReaderTest, SignExtendsFromPmcWidthNotZeroExtends) {
  page_.offset = 1000;
  raw_ = 0x0000FFFFFFFFFFF0;  // -16 in 48 bits
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  // A zero-extending reader reports 1000 - 16 + 2^48.
  EXPECT_EQ(r->count, 984u);
}

TEST_F(MmapReaderTest, IgnoresBitsAboveTheWidth) {
  page_.offset = 10;
  raw_ = 0xABCD000000000005;
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, 15u);
}

TEST_F(MmapReaderTest, DeltaAcrossACounterWrapIsTheDistanceTravelled) {
  page_.offset = uint64_t{1} << 40;
  raw_ = 0x0000FFFFFFFFFFF0;  // 16 below the wrap
  std::optional<MmapReading> before = Read();
  raw_ = 0x10;  // 16 above it; the offset has not been updated yet
  std::optional<MmapReading> after = Read();
  ASSERT_TRUE(before && after);
  EXPECT_EQ(SaturatingSub(after->count, before->count), 32u);
}

TEST_F(MmapReaderTest, HandlesOtherPmcWidths) {
  page_.offset = 100;
  page_.pmc_width = 40;
  raw_ = 0xFFFFFFFFFF;  // -1 in 40 bits
  EXPECT_EQ(Read()->count, 99u);
  page_.pmc_width = 64;  // full width: nothing to extend
  raw_ = ~uint64_t{0};
  EXPECT_EQ(Read()->count, 99u);
}

TEST_F(MmapReaderTest, NegativeOffsetIsAddedModulo2To64) {
  // The kernel stores count - pmc at the last update: often negative.
  page_.offset = static_cast<uint64_t>(int64_t{-500});
  raw_ = 1500;
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, 1000u);
}

TEST_F(MmapReaderTest, IndexZeroFallsBackWithoutTouchingTheCounter) {
  page_.index = 0;
  page_.offset = 1000;
  EXPECT_FALSE(Read().has_value());
  EXPECT_EQ(counter_calls_, 0);
}

TEST_F(MmapReaderTest, NoUserRdpmcFallsBackWithoutTouchingTheCounter) {
  page_.cap_user_rdpmc = 0;
  EXPECT_FALSE(Read().has_value());
  EXPECT_EQ(counter_calls_, 0);
}

TEST_F(MmapReaderTest, ExtendsEnabledAndRunningTimeWithTheTimestamp) {
  page_.cap_user_time = 1;
  page_.time_enabled = 1000;
  page_.time_running = 800;  // multiplexed: enabled != running
  page_.time_shift = 10;
  page_.time_mult = 512;  // half a nanosecond per tick
  page_.time_offset = 100;
  tsc_ = 1'000'000;
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(tsc_calls_, 1);
  // 100 + 1e6 * 512 / 1024 = 500100 ns since the page's last update.
  EXPECT_EQ(r->time_enabled, 1000u + 500100u);
  EXPECT_EQ(r->time_running, 800u + 500100u);
}

// Without cap_user_time the page's times are as of its last update; while
// they differ (the event was multiplexed) a fresh count with them would be
// scaled by a stale ratio: read(2) instead.
TEST_F(MmapReaderTest, MultiplexedWithoutCapUserTimeFallsBack) {
  page_.cap_user_time = 0;
  page_.time_enabled = 1000;
  page_.time_running = 800;
  tsc_ = 1'000'000;
  EXPECT_FALSE(Read().has_value());
  EXPECT_EQ(tsc_calls_, 0);
}

TEST_F(MmapReaderTest, NeverMultiplexedWithoutCapUserTimeKeepsThePageTimes) {
  page_.cap_user_time = 0;
  page_.time_enabled = 1000;
  page_.time_running = 1000;
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(tsc_calls_, 0);
  EXPECT_EQ(r->time_enabled, 1000u);
  EXPECT_EQ(r->time_running, 1000u);
}

// A group member's page: its times do not matter (the leader's are the
// group's), so stale times neither send it to read(2) nor cost a timestamp.
TEST_F(MmapReaderTest, AMembersCountNeedsNoTimes) {
  page_.cap_user_time = 0;
  page_.time_enabled = 1000;
  page_.time_running = 800;
  page_.offset = 5;
  raw_ = 7;
  ASSERT_FALSE(Read().has_value());  // with times: they cannot be extended
  index_ = 0;
  uint64_t count = 0;
  ASSERT_TRUE(ReadPageCount(&page_, count,
                            FakeCounter{&raw_, &counter_calls_, &index_}));
  EXPECT_EQ(count, 12u);
  EXPECT_EQ(index_, 2u);  // pc->index - 1
  EXPECT_EQ(tsc_calls_, 0);
}

// arm64 sets cap_user_time_short: the timestamp counter is narrower than 64
// bits, and time_cycles/time_mask widen a reading past its wrap
// (linux/perf_event.h: cyc = time_cycles + ((cyc - time_cycles) & time_mask)).
TEST_F(MmapReaderTest, ShortTimestampIsWidenedFromTimeCycles) {
  page_.cap_user_time = 1;
  page_.cap_user_time_short = 1;
  page_.time_enabled = 1000;
  page_.time_running = 800;
  page_.time_shift = 0;
  page_.time_mult = 1;
  page_.time_cycles = 0x1F0;  // the counter when the page was written
  page_.time_mask = 0xFF;     // an 8-bit counter
  page_.time_offset = static_cast<uint64_t>(-int64_t{0x1F0});
  tsc_ = 0x10;  // wrapped: 0x20 ticks after 0x1F0
  std::optional<MmapReading> r = Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->time_enabled, 1000u + 0x20);
  EXPECT_EQ(r->time_running, 800u + 0x20);
}

// The times of a reading are as of the read even when the event had never
// been multiplexed at the page's last update: a segment that starts before
// multiplexing does and ends after it scales by its own window.
TEST_F(MmapReaderTest, SegmentScalesByTheTimesOfItsOwnTwoReadings) {
  page_.cap_user_time = 1;
  page_.time_shift = 0;
  page_.time_mult = 1;
  // Page written at timestamp 10000: never multiplexed so far.
  page_.time_enabled = 1000;
  page_.time_running = 1000;
  page_.time_offset = static_cast<uint64_t>(-int64_t{10000});
  page_.offset = 100;
  tsc_ = 15000;  // the segment starts 5000 ns later
  std::optional<MmapReading> start = Read();
  // From 15000 to 20000 the event ran 2000 of 5000 ns and counted 200; the
  // kernel rewrote the page at 20000, where the segment ends.
  page_.time_enabled = 1000 + 5000 + 5000;
  page_.time_running = 1000 + 5000 + 2000;
  page_.time_offset = static_cast<uint64_t>(-int64_t{20000});
  page_.offset = 300;
  tsc_ = 20000;
  std::optional<MmapReading> stop = Read();
  ASSERT_TRUE(start && stop);
  GroupSnapshot a, b;
  a.counts[0] = start->count;
  a.time_enabled = start->time_enabled;
  a.time_running = start->time_running;
  b.counts[0] = stop->count;
  b.time_enabled = stop->time_enabled;
  b.time_running = stop->time_running;
  const GroupDelta d = Delta(a, b, 1);
  EXPECT_EQ(d.time_enabled, 5000u);
  EXPECT_EQ(d.time_running, 2000u);
  EXPECT_DOUBLE_EQ(d.counts[0], 500.0);  // 200 * 5000 / 2000
}

TEST(CounterMathTest, TscToPerfTimeDoesNotOverflowWhereCycTimesMultWould) {
  // Days of uptime at GHz rates with a large shift: cyc * mult needs ~80 bits.
  const uint64_t cyc = 1'000'000'000'000'000;
  const uint16_t shift = 31;
  const uint32_t mult = 715827883;  // ~ 2^31 / 3
  const unsigned __int128 exact =
      (static_cast<unsigned __int128>(cyc) * mult) >> shift;
  EXPECT_EQ(TscToPerfTime(cyc, shift, mult, 7),
            static_cast<uint64_t>(exact) + 7);
  EXPECT_EQ(TscToPerfTime(0, shift, mult, 7), 7u);
}

TEST(CounterMathTest, SignExtend) {
  EXPECT_EQ(SignExtend(0x800000000000, 48), -(int64_t{1} << 47));
  EXPECT_EQ(SignExtend(0x7FFFFFFFFFFF, 48), (int64_t{1} << 47) - 1);
  EXPECT_EQ(SignExtend(0xFF, 8), -1);
  EXPECT_EQ(SignExtend(0x7F, 8), 127);
  EXPECT_EQ(SignExtend(~uint64_t{0}, 64), -1);
  EXPECT_EQ(SignExtend(5, 0), 5);
}

TEST(CounterMathTest, ScalingSaturationAndOverhead) {
  EXPECT_EQ(SaturatingSub(10, 3), 7u);
  EXPECT_EQ(SaturatingSub(3, 10), 0u);
  EXPECT_DOUBLE_EQ(ScaleCount(100, 1000, 250), 400.0);
  EXPECT_DOUBLE_EQ(ScaleCount(100, 1000, 1000), 100.0);
  EXPECT_DOUBLE_EQ(ScaleCount(100, 1000, 0), 0.0);
  EXPECT_DOUBLE_EQ(ScaleCount(100, 0, 0), 100.0);
  EXPECT_DOUBLE_EQ(RunningFraction(1000, 250), 0.25);
  EXPECT_DOUBLE_EQ(RunningFraction(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(SubtractOverhead(10.0, 3.0), 7.0);
  EXPECT_DOUBLE_EQ(SubtractOverhead(2.0, 3.0), 0.0);
}

// ---- The seqlock. ----

// Bumps the page's lock to odd, writes a new (offset, pmc) pair whose sum is
// the invariant, and bumps the lock to even again, as
// perf_event_update_userpage does.
void WriteUpdate(volatile perf_event_mmap_page* page,
                 volatile uint64_t* pmc_register, uint64_t invariant,
                 uint64_t pmc) {
  page->lock = page->lock + 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  page->offset = invariant - (pmc / 2);  // the offset half-way...
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *pmc_register = pmc;  // ...the counter...
  std::atomic_thread_fence(std::memory_order_seq_cst);
  page->offset = invariant - pmc;  // ...then the final offset
  std::atomic_thread_fence(std::memory_order_seq_cst);
  page->lock = page->lock + 1;
}

TEST(SeqlockTest, ConcurrentWriterNeverYieldsATornSum) {
  SameCpuOnArm64 placement;  // the kernel writes on the reader's CPU
  constexpr uint64_t kInvariant = 1'000'000'000'000;
  perf_event_mmap_page page{};
  page.cap_user_rdpmc = 1;
  page.pmc_width = 48;
  page.index = 1;
  volatile uint64_t pmc_register = 0;
  page.offset = kInvariant;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> updates{0};

  std::thread writer([&] {
    for (uint64_t pmc = 1; !stop.load(std::memory_order_relaxed); ++pmc) {
      WriteUpdate(&page, &pmc_register, kInvariant, pmc % (uint64_t{1} << 40));
      updates.fetch_add(1, std::memory_order_relaxed);
      // A short pause with the lock even, so the reader is not starved.
      for (int pause = 0; pause < 32; ++pause) CompilerBarrier();
    }
  });
  // Let the writer start so reads overlap its updates.
  while (updates.load() < 1000) std::this_thread::yield();

  uint64_t counter_calls = 0;
  uint64_t torn = 0;
  uint64_t reads = 0;
  // Read until the writer has made many updates during the reads (on a busy
  // machine it may not run at first), bounded so the test always ends.
  const uint64_t updates_at_start = updates.load();
  constexpr uint64_t kUpdatesWhileReading = 100000;
  constexpr uint64_t kMinReads = 100000;
  constexpr uint64_t kMaxReads = 200'000'000;
  while ((updates.load(std::memory_order_relaxed) - updates_at_start <
              kUpdatesWhileReading ||
          reads < kMinReads) &&
         reads < kMaxReads) {
    std::optional<MmapReading> r = ReadMmapPage(
        &page,
        [&](uint32_t) {
          ++counter_calls;
          return uint64_t{pmc_register};
        },
        [] { return uint64_t{0}; });
    ASSERT_TRUE(r.has_value());
    if (r->count != kInvariant) ++torn;
    ++reads;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(torn, 0u);
  EXPECT_GE(updates.load() - updates_at_start, kUpdatesWhileReading);
  EXPECT_GE(reads, kMinReads);
  // Informational: how often the loop had to retry.
  std::printf(
      "seqlock: %llu writer updates during %llu reads, %llu counter "
      "reads\n",
      static_cast<unsigned long long>(updates.load() - updates_at_start),
      static_cast<unsigned long long>(reads),
      static_cast<unsigned long long>(counter_calls));
}

TEST(SeqlockTest, WaitsWhileTheLockIsOddInsteadOfReadingAHalfWrittenPage) {
  SameCpuOnArm64 placement;  // the kernel writes on the reader's CPU
  constexpr uint64_t kInvariant = 777;
  perf_event_mmap_page page{};
  page.cap_user_rdpmc = 1;
  page.pmc_width = 48;
  page.index = 1;
  volatile uint64_t pmc_register = 100;
  // Mid-update: lock odd, offset not yet matching the counter.
  page.lock = 5;
  page.offset = 1;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    volatile perf_event_mmap_page* p = &page;
    p->offset = kInvariant - 100;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    p->lock = 6;
  });
  std::optional<MmapReading> r = ReadMmapPage(
      &page, [&](uint32_t) { return uint64_t{pmc_register}; },
      [] { return uint64_t{0}; });
  writer.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->count, kInvariant);
}

TEST(SeqlockTest, RetriesWhenTheEventMovesOffThePmuMidRead) {
  perf_event_mmap_page page{};
  page.lock = 2;
  page.cap_user_rdpmc = 1;
  page.pmc_width = 48;
  page.index = 1;
  page.offset = 50;
  int calls = 0;
  // The first counter read races with a kernel update that takes the event
  // off the PMU (index 0): the retry must see it and fall back.
  std::optional<MmapReading> r = ReadMmapPage(
      &page,
      [&](uint32_t) {
        if (calls++ == 0) {
          page.lock = 4;
          page.index = 0;
        }
        return uint64_t{9};
      },
      [] { return uint64_t{0}; });
  EXPECT_FALSE(r.has_value());
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace pmubench::perf

namespace pmubench::perf {
namespace {

// Three synthetic pages of one group: counter i holds raw[i].
class GroupPagesTest : public ::testing::Test {
 protected:
  GroupPagesTest() {
    for (int i = 0; i < 3; ++i) {
      pages_[i].lock = 2;
      pages_[i].index = static_cast<uint32_t>(i + 1);
      pages_[i].cap_user_rdpmc = 1;
      pages_[i].pmc_width = 48;
      pages_[i].offset = 1000 * static_cast<uint64_t>(i + 1);
      ptrs_[i] = &pages_[i];
    }
    pages_[0].time_enabled = 5000;
    pages_[0].time_running = 4000;
    pages_[0].cap_user_time = 1;
    pages_[0].time_mult = 1;
    pages_[0].time_shift = 0;
    // Member times that disagree with the leader's: they must be ignored.
    pages_[1].time_enabled = pages_[2].time_enabled = 1;
    pages_[1].time_running = pages_[2].time_running = 0;
  }

  bool Read() {
    return ReadGroupPages(
        ptrs_, 3, counts_, enabled_, running_,
        [&](uint32_t counter) {
          ++counter_calls_;
          return raw_[counter];
        },
        [&] {
          ++tsc_calls_;
          return uint64_t{700};
        });
  }

  perf_event_mmap_page pages_[3]{};
  const perf_event_mmap_page* ptrs_[3]{};
  uint64_t raw_[3] = {7, 8, 9};
  uint64_t counts_[3] = {};
  uint64_t enabled_ = 0, running_ = 0;
  int counter_calls_ = 0, tsc_calls_ = 0;
};

TEST_F(GroupPagesTest, EachCountFromItsPageTimesFromTheLeaderWithOneTimestamp) {
  ASSERT_TRUE(Read());
  EXPECT_EQ(counts_[0], 1007u);
  EXPECT_EQ(counts_[1], 2008u);
  EXPECT_EQ(counts_[2], 3009u);
  // time_offset 0, mult 1, shift 0: 700 ns since the leader's page update.
  EXPECT_EQ(enabled_, 5700u);
  EXPECT_EQ(running_, 4700u);
  EXPECT_EQ(counter_calls_, 3);
  EXPECT_EQ(tsc_calls_, 1);  // members read no timestamp
}

TEST_F(GroupPagesTest, MembersSignExtendFromTheirOwnPmcWidth) {
  pages_[1].pmc_width = 32;  // 0xFFFFFFFF is -1 at 32 bits
  pages_[2].pmc_width = 64;
  raw_[1] = 0xFFFFFFFFu;
  raw_[2] = ~uint64_t{0};
  pages_[1].offset = 1'000'000;
  pages_[2].offset = 2'000'000;
  ASSERT_TRUE(Read());
  EXPECT_EQ(counts_[1], 999'999u);
  EXPECT_EQ(counts_[2], 1'999'999u);
}

TEST_F(GroupPagesTest, AMemberOffThePmuSendsTheGroupToReadSyscall) {
  pages_[2].index = 0;
  EXPECT_FALSE(Read());
  pages_[2].index = 3;
  pages_[1].cap_user_rdpmc = 0;
  EXPECT_FALSE(Read());
}

TEST_F(GroupPagesTest, ALeaderThatCannotBringItsTimesUpToDateFallsBack) {
  pages_[0].cap_user_time = 0;  // enabled != running and no way to extend
  EXPECT_FALSE(Read());
}

TEST_F(GroupPagesTest, AMemberRetriesWhenItsPageChangesDuringTheRead) {
  int member_reads = 0;
  // The first read of member 1 races with a kernel update of its page (the
  // lock moves on, the offset changes): the value read must be the new one.
  ASSERT_TRUE(ReadGroupPages(
      ptrs_, 3, counts_, enabled_, running_,
      [&](uint32_t counter) {
        if (counter == 1 && member_reads++ == 0) {
          pages_[1].lock = 4;
          pages_[1].offset = 50;
        }
        return raw_[counter];
      },
      [] { return uint64_t{0}; }));
  EXPECT_EQ(member_reads, 2);
  EXPECT_EQ(counts_[1], 58u);
}

}  // namespace
}  // namespace pmubench::perf
