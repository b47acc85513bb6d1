// The pinned group's page read (pinned_page_read.h) against synthetic
// perf_event_mmap_pages and a fake counter instruction: counts, the page's
// times, what sends the group elsewhere, retries, and a writer thread racing
// the read that must never yield a torn value.
#include "framework/perf/counting/pinned_page_read.h"

#include <linux/perf_event.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "gtest/gtest.h"
#include "tests/perf/same_cpu_on_arm64.h"

namespace pmubench::perf {
namespace {

constexpr int kEvents = 3;

// Three pages of one pinned group, on counters 1..3 (index 2..4); counter c
// holds raw_[c].
class PinnedPagesTest : public ::testing::Test {
 protected:
  PinnedPagesTest() {
    for (int i = 0; i < kEvents; ++i) {
      pages_[i].lock = 2;
      pages_[i].index = static_cast<uint32_t>(i + 2);
      pages_[i].cap_user_rdpmc = 1;
      pages_[i].pmc_width = 48;
      pages_[i].offset = 1000 * static_cast<uint64_t>(i + 1);
      ptrs_[i] = &pages_[i];
    }
    pages_[0].time_enabled = pages_[0].time_running = 5000;
    // Member times are never read: a group is scheduled as one.
    pages_[1].time_enabled = 1;
    pages_[2].time_running = 1;
  }

  bool Read() {
    return ReadPinnedGroupPages<kEvents>(ptrs_, counts_, enabled_, running_,
                                         [this](uint32_t counter) {
                                           ++counter_calls_;
                                           return raw_[counter];
                                         });
  }

  perf_event_mmap_page pages_[kEvents]{};
  const perf_event_mmap_page* ptrs_[kEvents]{};
  uint64_t raw_[kEvents + 1] = {0, 7, 8, 9};
  uint64_t counts_[kEvents] = {};
  uint64_t enabled_ = 0, running_ = 0;
  int counter_calls_ = 0;
};

TEST_F(PinnedPagesTest, EachCountFromItsOwnPageAndTheLeadersTimesAsTheyAre) {
  ASSERT_TRUE(Read());
  EXPECT_EQ(counts_[0], 1007u);
  EXPECT_EQ(counts_[1], 2008u);
  EXPECT_EQ(counts_[2], 3009u);
  EXPECT_EQ(enabled_, 5000u);
  EXPECT_EQ(running_, 5000u);
  EXPECT_EQ(counter_calls_, kEvents);
}

TEST_F(PinnedPagesTest, SignExtendsFromEachPagesPmcWidth) {
  pages_[1].pmc_width = 32;  // 0xFFFFFFFF is -1 at 32 bits
  pages_[2].pmc_width = 64;
  raw_[2] = 0xFFFFFFFFu;
  raw_[3] = ~uint64_t{0};
  ASSERT_TRUE(Read());
  EXPECT_EQ(counts_[1], 1999u);
  EXPECT_EQ(counts_[2], 2999u);
}

TEST_F(PinnedPagesTest, ALeaderThatHasNotRunAllItsEnabledTimeIsNotRead) {
  pages_[0].time_running = 4999;
  EXPECT_FALSE(Read());
  EXPECT_EQ(counter_calls_, 0);
}

TEST_F(PinnedPagesTest, AnEventOffThePmuStopsTheReadBeforeItsCounter) {
  pages_[2].index = 0;
  EXPECT_FALSE(Read());
  EXPECT_EQ(counter_calls_, 2);  // the leader and member 1 only
  pages_[2].index = 4;
  pages_[0].index = 0;
  EXPECT_FALSE(Read());
  EXPECT_EQ(counter_calls_, 2);
}

TEST_F(PinnedPagesTest, EachPageRetriesUnderItsOwnLock) {
  int member_reads = 0;
  // Member 1's first counter read races a kernel update of its page alone
  // (its lock moves on, its offset changes): only that page is read again.
  ASSERT_TRUE(ReadPinnedGroupPages<kEvents>(
      ptrs_, counts_, enabled_, running_, [&](uint32_t counter) {
        ++counter_calls_;
        if (counter == 2 && member_reads++ == 0) {
          pages_[1].lock = 4;
          pages_[1].offset = 50;
        }
        return raw_[counter];
      }));
  EXPECT_EQ(counts_[1], 58u);
  EXPECT_EQ(member_reads, 2);
  EXPECT_EQ(counter_calls_, kEvents + 1);
}

// ---- A writer thread racing the read. ----

// Page i's count must always read kInvariant[i]; the leader's times T and
// its count must always satisfy count == kLeaderBase + T.
constexpr uint64_t kInvariant[kEvents] = {0, 2'000'000'000'000,
                                          3'000'000'000'000};
constexpr uint64_t kLeaderBase = 1'000'000'000'000;

// One update of page `i`, as perf_event_update_userpage makes it: lock to
// odd, the fields (a half-way offset first, so a read between the stores
// sees a wrong sum), lock to even. Seq_cst fences keep the stores in order
// for a reader on another CPU.
void UpdatePage(volatile perf_event_mmap_page* page, volatile uint64_t* reg,
                int i, uint64_t pmc) {
  const auto fence = [] {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  };
  page->lock = page->lock + 1;
  fence();
  const uint64_t target = i == 0 ? kLeaderBase + pmc : kInvariant[i];
  page->offset = target - pmc / 2;
  fence();
  if (i == 0) page->time_enabled = pmc;
  fence();
  *reg = pmc;
  fence();
  if (i == 0) page->time_running = pmc;
  page->offset = target - pmc;
  fence();
  page->lock = page->lock + 1;
}

struct RaceCounts {
  uint64_t reads = 0, fallbacks = 0, torn = 0, counter_calls = 0;
  uint64_t retried = 0;  // reads that met an update and read a page again
};

// One read of the racing pages into `race`: torn when a page's count breaks
// its invariant or the leader's times disagree with its count.
void ReadOnce(const perf_event_mmap_page* const* ptrs,
              const volatile uint64_t* regs, RaceCounts& race) {
  uint64_t counts[kEvents] = {};
  uint64_t enabled = 0, running = 0;
  const uint64_t calls_before = race.counter_calls;
  const bool read = ReadPinnedGroupPages<kEvents>(
      ptrs, counts, enabled, running, [&](uint32_t counter) {
        ++race.counter_calls;
        return uint64_t{regs[counter]};
      });
  ++race.reads;
  // False only where the leader's times were caught between their two
  // stores (enabled != running): the caller then reads another way.
  if (!read) {
    ++race.fallbacks;
    return;
  }
  if (race.counter_calls - calls_before > kEvents) ++race.retried;
  if (counts[0] != kLeaderBase + enabled || enabled != running ||
      counts[1] != kInvariant[1] || counts[2] != kInvariant[2]) {
    ++race.torn;
  }
}

TEST(PinnedSeqlockTest, AWriterRacingTheReadNeverYieldsATornValue) {
  SameCpuOnArm64 placement;  // the kernel writes on the reader's CPU
  perf_event_mmap_page pages[kEvents]{};
  const perf_event_mmap_page* ptrs[kEvents]{};
  volatile uint64_t regs[kEvents] = {};
  for (int i = 0; i < kEvents; ++i) {
    pages[i].index = static_cast<uint32_t>(i + 1);
    pages[i].pmc_width = 48;
    ptrs[i] = &pages[i];
    UpdatePage(&pages[i], &regs[i], i, 0);
  }
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> updates{0};
  std::thread writer([&] {
    for (uint64_t pmc = 1; !stop.load(std::memory_order_relaxed); ++pmc) {
      UpdatePage(&pages[pmc % kEvents], &regs[pmc % kEvents],
                 static_cast<int>(pmc % kEvents), pmc % (uint64_t{1} << 40));
      updates.fetch_add(1, std::memory_order_relaxed);
    }
  });
  // Read until the writer has made many updates during the reads and some
  // reads met an update mid-section (on one CPU, only when the reader is
  // preempted there: a few timer ticks), bounded so it ends.
  while (updates.load() == 0) std::this_thread::yield();
  const uint64_t updates_at_start = updates.load();
  constexpr uint64_t kUpdatesWhileReading = 100000;
  constexpr uint64_t kMinReads = 100000;
  constexpr uint64_t kMinRetried = 10;
  RaceCounts race;
  while ((updates.load(std::memory_order_relaxed) - updates_at_start <
              kUpdatesWhileReading ||
          race.reads < kMinReads || race.retried < kMinRetried) &&
         race.reads < 200'000'000) {
    ReadOnce(ptrs, regs, race);
  }
  stop = true;
  writer.join();
  EXPECT_EQ(race.torn, 0u);
  EXPECT_GE(updates.load() - updates_at_start, kUpdatesWhileReading);
  EXPECT_GE(race.reads - race.fallbacks, kMinReads / 2);
  EXPECT_GE(race.retried, kMinRetried);  // the race was run, not dodged
  std::printf(
      "pinned seqlock: %llu writer updates during %llu reads (%llu sent "
      "elsewhere, %llu read again), %llu counter reads\n",
      static_cast<unsigned long long>(updates.load() - updates_at_start),
      static_cast<unsigned long long>(race.reads),
      static_cast<unsigned long long>(race.fallbacks),
      static_cast<unsigned long long>(race.retried),
      static_cast<unsigned long long>(race.counter_calls));
}

}  // namespace
}  // namespace pmubench::perf
