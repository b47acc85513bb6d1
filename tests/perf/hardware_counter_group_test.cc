// Counter groups on a real core PMU, held to exact values: the user-space
// read path, exact counts of a known loop through both read paths, the
// seqlock read while the kernel rewrites the page (context switches), the
// counter limit of a pinned group and multiplexing of non-pinned groups.
//
// They skip, printing why, where there is no core PMU. scripts/pmu-vm test
// runs them on an arm64 kernel with QEMU's emulated PMUv3, whose instruction
// counts are exact (-icount): every "exact" below is exact there.
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/counting/counter_math.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/counted_loop.h"
#include "tests/perf/hardware_pmu.h"

namespace pmubench::perf {
namespace {

using ::pmubench::testing::CountedLoop;
using ::pmubench::testing::kCountedLoopInstructions;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// `instructions` n times (a group may count one event on several counters;
// only the runner's event lists, one JSON field per spec, refuse repeats).
std::vector<ResolvedEvent> Instructions(int n) {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  EXPECT_TRUE(pmus.ok()) << pmus.status();
  absl::StatusOr<std::vector<ResolvedEvent>> events =
      ResolveEventList("instructions", *pmus);
  EXPECT_TRUE(events.ok()) << events.status();
  if (!events.ok()) return {};
  return std::vector<ResolvedEvent>(n, events->at(0));
}

absl::StatusOr<CounterGroup> OpenInstructions(int n,
                                              GroupOptions options = {}) {
  return CounterGroup::Open(Instructions(n), options);
}

// The counter width and user-read capability the kernel reports for `attr`
// (perf_event_mmap_page::pmc_width, cap_user_rdpmc), from an event of our
// own opened with the same attributes.
struct PageFacts {
  int pmc_width = -1;
  bool cap_user_rdpmc = false;
};

PageFacts PageFactsOf(perf_event_attr attr) {
  PageFacts facts;
  attr.disabled = 0;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) return facts;
  void* page = mmap(nullptr, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
                    static_cast<int>(fd), 0);
  if (page != MAP_FAILED) {
    const auto* pc = static_cast<const volatile perf_event_mmap_page*>(page);
    facts.pmc_width = pc->pmc_width;
    facts.cap_user_rdpmc = pc->cap_user_rdpmc;
    munmap(page, sysconf(_SC_PAGESIZE));
  }
  close(static_cast<int>(fd));
  return facts;
}

// Exact instructions of CountedLoop(n) between two snapshots of `group`'s
// first event, minus those of CountedLoop(1): the snapshots' own cost and the
// call's setup cancel.
int64_t LoopInstructions(CounterGroup& group, uint64_t n) {
  // Both lengths come from registers, so both calls take the same
  // instructions to pass them (a large immediate needs movz + movk).
  uint64_t one = 1;
  asm volatile("" : "+r"(n), "+r"(one));
  GroupSnapshot a, b, c, d;
  EXPECT_TRUE(group.Snapshot(a));
  CountedLoop(n);
  EXPECT_TRUE(group.Snapshot(b));
  EXPECT_TRUE(group.Snapshot(c));
  CountedLoop(one);
  EXPECT_TRUE(group.Snapshot(d));
  return static_cast<int64_t>(b.counts[0] - a.counts[0]) -
         static_cast<int64_t>(d.counts[0] - c.counts[0]);
}

TEST(HardwarePmuTest, UserReadPathNeedsNoReadSyscallPerSnapshot) {
  PMUBENCH_SKIP_IF_NO_HARDWARE_PMU();
  if (std::string why = testing::NoUserReadReason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  absl::StatusOr<CounterGroup> group = OpenInstructions(2);
  ASSERT_TRUE(group.ok()) << group.status();
  for (const OpenedEvent& e : group->events()) {
    EXPECT_EQ(e.read_method, ReadMethod::kRdpmc)
        << e.event.spec << ": the kernel offers user reads (cap_user_rdpmc "
        << PageFactsOf(e.attr).cap_user_rdpmc << ") but the group reads by "
        << ReadMethodName(e.read_method);
  }
  const uint64_t syscalls = group->read_syscalls();
  GroupSnapshot snapshot;
  int read_syscall_snapshots = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(group->Snapshot(snapshot));
    read_syscall_snapshots += snapshot.used_read_syscall;
  }
  EXPECT_EQ(read_syscall_snapshots, 0);
  EXPECT_EQ(group->read_syscalls(), syscalls);
}

TEST(HardwarePmuTest, KnownLoopCountsExactlyThroughBothReadPaths) {
  PMUBENCH_SKIP_IF_NO_HARDWARE_PMU();
  for (const bool use_rdpmc : {true, false}) {
    GroupOptions options;
    options.use_rdpmc = use_rdpmc;
    absl::StatusOr<CounterGroup> group = OpenInstructions(1, options);
    ASSERT_TRUE(group.ok()) << group.status();
    constexpr uint64_t kIterations = 100'001;
    EXPECT_EQ(
        LoopInstructions(*group, kIterations),
        static_cast<int64_t>(kCountedLoopInstructions * (kIterations - 1)))
        << "read method " << ReadMethodName(group->events()[0].read_method);
  }
}

// Keeps one CPU busy with a thread that yields, pinned beside the caller, so
// the caller is switched out and back in: each switch makes the kernel
// rewrite its events' mmap pages (offset, index, times).
class Competitor {
 public:
  Competitor() {
    cpu_set_t one{};
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_getaffinity(0, sizeof(saved_), &saved_);
    sched_setaffinity(0, sizeof(one), &one);
    thread_ = std::thread([this, one] {
      sched_setaffinity(0, sizeof(one), &one);
      while (!stop_.load(std::memory_order_relaxed)) sched_yield();
    });
  }
  ~Competitor() {
    stop_ = true;
    thread_.join();
    sched_setaffinity(0, sizeof(saved_), &saved_);
  }

 private:
  cpu_set_t saved_{};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

long InvoluntarySwitches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nivcsw + usage.ru_nvcsw;
}

// A user-space read and a read(2) of two groups counting the same thread:
// their difference is a constant (the instructions between the two reads),
// so a torn seqlock read, a missed offset update or a wrong sign extension
// after the kernel rewrote the page shows up as a snapshot that differs.
TEST(HardwarePmuTest, SeqlockReadMatchesReadSyscallAcrossContextSwitches) {
  PMUBENCH_SKIP_IF_NO_HARDWARE_PMU();
  if (std::string why = testing::NoUserReadReason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  absl::StatusOr<CounterGroup> user_read = OpenInstructions(1);
  GroupOptions read_only;
  read_only.use_rdpmc = false;
  absl::StatusOr<CounterGroup> syscall_read = OpenInstructions(1, read_only);
  ASSERT_TRUE(user_read.ok()) << user_read.status();
  ASSERT_TRUE(syscall_read.ok()) << syscall_read.status();
  ASSERT_EQ(user_read->events()[0].read_method, ReadMethod::kRdpmc);

  constexpr int kSnapshots = 2000;
  std::vector<int64_t> gaps(kSnapshots);
  GroupSnapshot a, b;
  const long switches_before = InvoluntarySwitches();
  {
    Competitor competitor;
    for (int i = 0; i < kSnapshots; ++i) {
      ASSERT_TRUE(user_read->Snapshot(a));
      ASSERT_TRUE(syscall_read->Snapshot(b));
      gaps[i] = static_cast<int64_t>(a.counts[0] - b.counts[0]);
      CountedLoop(2000);
    }
  }
  const long switches = InvoluntarySwitches() - switches_before;
  EXPECT_GT(switches, 10) << "the test did not get the kernel to switch the "
                             "thread out: it proves less than it should";
  int mismatches = 0;
  for (int i = 1; i < kSnapshots; ++i) {
    if (gaps[i] != gaps[0] && ++mismatches <= 5) {
      ADD_FAILURE() << "snapshot " << i << ": user read minus read(2) is "
                    << gaps[i] << ", snapshot 0 had " << gaps[0];
    }
  }
  EXPECT_EQ(mismatches, 0) << "over " << kSnapshots << " snapshots and "
                           << switches << " context switches";
}

TEST(HardwarePmuTest, PinnedGroupWithMoreEventsThanCountersSaysWhatToDrop) {
  PMUBENCH_SKIP_IF_NO_HARDWARE_PMU();
  // More instruction events than any core PMU has counters for.
  absl::StatusOr<CounterGroup> group = OpenInstructions(kMaxGroupEvents);
  ASSERT_FALSE(group.ok()) << "a pinned group of " << kMaxGroupEvents
                           << " instructions events opened and is healthy";
  // The message gives the limit: the counter count where user space can
  // read it (x86 CPUID), else where the kernel stopped accepting events
  // (arm64 keeps PMCR_EL0.N from user space).
  const std::string message(group.status().message());
  EXPECT_THAT(message,
              ContainsRegex("([0-9]+ [a-z -]*counters|event [0-9]+ of a "
                            "group of [0-9]+)"))
      << message;
  EXPECT_THAT(message, HasSubstr("counter")) << message;
  EXPECT_THAT(message, HasSubstr("drop")) << message;
}

TEST(HardwarePmuTest, CompetingNonPinnedGroupsAreMultiplexedAndScaled) {
  PMUBENCH_SKIP_IF_NO_HARDWARE_PMU();
  // Four groups of four: 16 counters' worth, more than any core PMU has, so
  // the kernel rotates them and each runs part of the time.
  GroupOptions shared;
  shared.pinned = false;
  constexpr int kGroups = 4;
  constexpr int kEvents = 4;
  std::vector<CounterGroup> groups;
  for (int g = 0; g < kGroups; ++g) {
    absl::StatusOr<CounterGroup> group = OpenInstructions(kEvents, shared);
    ASSERT_TRUE(group.ok()) << group.status();
    groups.push_back(std::move(*group));
  }
  std::vector<GroupSnapshot> before(kGroups), after(kGroups);
  for (int g = 0; g < kGroups; ++g) ASSERT_TRUE(groups[g].Snapshot(before[g]));
  constexpr uint64_t kIterations = 1'000'000;
  CountedLoop(kIterations);
  for (int g = 0; g < kGroups; ++g) ASSERT_TRUE(groups[g].Snapshot(after[g]));
  const double truth =
      static_cast<double>(kCountedLoopInstructions * kIterations);
  for (int g = 0; g < kGroups; ++g) {
    const GroupDelta d = Delta(before[g], after[g], kEvents);
    const double running = RunningFraction(d.time_enabled, d.time_running);
    EXPECT_LT(running, 1.0) << "group " << g;
    EXPECT_GT(running, 0.0) << "group " << g;
    for (int e = 0; e < kEvents; ++e) {
      // Scaled by enabled/running: within 2% of the truth for a loop this
      // uniform (the kernel rotates groups every few milliseconds).
      EXPECT_NEAR(d.counts[e], truth, truth * 0.02)
          << "group " << g << " event " << e << " ran " << running * 100
          << "% of the time";
    }
  }
}

}  // namespace
}  // namespace pmubench::perf
