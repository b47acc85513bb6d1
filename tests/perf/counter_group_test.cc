// Real perf_event groups on this machine: software events and the msr PMU
// everywhere, hardware events where a core PMU exists (skipped otherwise).
#include "framework/perf/counting/counter_group.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/perf/counting/counter_math.h"
#include "framework/perf/counting/mmap_reader.h"
#include "framework/perf/counting/perf_errors.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"
#include "framework/perf/system/machine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/perf_permitted.h"

namespace pmubench::perf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<ResolvedEvent> Resolve(const std::string& specs) {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  EXPECT_TRUE(pmus.ok()) << pmus.status();
  absl::StatusOr<std::vector<ResolvedEvent>> events =
      ResolveEventList(specs, *pmus);
  EXPECT_TRUE(events.ok()) << events.status();
  return events.ok() ? *events : std::vector<ResolvedEvent>{};
}

// Where this user may not open the events at all (perf_event_paranoid 3 on
// Debian kernels forbids every unprivileged perf_event_open; msr events count
// the kernel too, so they need paranoid <= 1 or CAP_PERFMON), a real-group test
// skips with the remedy the error names rather than failing.
#define SKIP_IF_NOT_PERMITTED(status)   \
  if (absl::IsPermissionDenied(status)) \
  GTEST_SKIP() << "perf_event_open not permitted for this user: " << (status)

absl::StatusOr<CounterGroup> OpenGroup(const std::string& specs,
                                       GroupOptions options = {}) {
  return CounterGroup::Open(Resolve(specs), options);
}

bool HasMsrTsc() {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  return pmus.ok() && pmus->Find("msr") != nullptr &&
         pmus->Find("msr")->aliases.count("tsc") != 0;
}

uint64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Burns user-space CPU for about `nanos` of thread CPU time.
void Spin(uint64_t nanos) {
  const uint64_t start = ThreadCpuNanos();
  volatile uint64_t sink = 0;
  while (ThreadCpuNanos() - start < nanos) {
    for (int i = 0; i < 1000; ++i) sink = sink + i;
  }
}

// Writes one byte into each page. Not instrumented by AddressSanitizer,
// whose shadow-memory checks would fault in shadow pages of their own (one
// per 8 pages touched) and add to the page-fault count.
__attribute__((no_sanitize("address"), noinline)) void TouchOneBytePerPage(
    char* mem, size_t pages, size_t page_size) {
  for (size_t i = 0; i < pages; ++i) {
    static_cast<volatile char*>(mem)[i * page_size] = 1;
  }
}

// Runs `body` in a forked child and returns what it wrote to the pipe it is
// given; the child's exit code goes to `exit_code`.
std::string RunInChild(const std::function<std::string()>& body,
                       int* exit_code) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string message = body();
    (void)!write(fds[1], message.data(), message.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(CounterGroupTest, SoftwareGroupOpensWithDesignAttributes) {
  absl::StatusOr<CounterGroup> group = OpenGroup("task-clock,page-faults");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  ASSERT_EQ(group->size(), 2);
  const perf_event_attr& leader = group->events()[0].attr;
  const perf_event_attr& member = group->events()[1].attr;
  EXPECT_EQ(leader.pinned, 1u);
  EXPECT_EQ(leader.disabled, 1u);
  EXPECT_EQ(leader.exclude_kernel, 1u);
  EXPECT_EQ(leader.exclude_hv, 1u);
  EXPECT_EQ(leader.read_format, uint64_t{PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                         PERF_FORMAT_TOTAL_TIME_ENABLED |
                                         PERF_FORMAT_TOTAL_TIME_RUNNING});
  EXPECT_EQ(member.pinned, 0u);
  EXPECT_EQ(member.disabled, 0u);
  // Software events have no hardware counter: cap_user_rdpmc is 0, and no
  // knob would change that, so there is no fallback notice.
  EXPECT_EQ(group->events()[0].read_method, ReadMethod::kRead);
  EXPECT_EQ(group->events()[0].read_fallback_reason, "");
  EXPECT_EQ(group->events()[1].read_fallback_reason, "");
  EXPECT_TRUE(group->Health().ok()) << group->Health();
}

TEST(CounterGroupTest, ModifiersOverrideTheExcludeDefaults) {
  absl::StatusOr<CounterGroup> group = OpenGroup("task-clock,page-faults:u");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  const perf_event_attr& user_only = group->events()[1].attr;
  EXPECT_EQ(user_only.exclude_user, 0u);
  EXPECT_EQ(user_only.exclude_kernel, 1u);
  GroupOptions with_kernel;
  with_kernel.exclude_kernel = false;
  if (geteuid() != 0 && PerfEventParanoid().value_or(2) > 1) {
    GTEST_SKIP()
        << "counting the kernel needs root or perf_event_paranoid <= 1";
  }
  absl::StatusOr<CounterGroup> all = OpenGroup("task-clock", with_kernel);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->events()[0].attr.exclude_kernel, 0u);
}

TEST(CounterGroupTest, TouchingFreshPagesCountsExactlyThatManyPageFaults) {
  absl::StatusOr<CounterGroup> group =
      OpenGroup("page-faults,minor-faults,major-faults");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t pages : {1u, 17u, 256u}) {
    char* mem =
        static_cast<char*>(mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(mem, MAP_FAILED);
    // One transparent huge page would take 512 pages in one fault.
    madvise(mem, pages * page, MADV_NOHUGEPAGE);
    GroupSnapshot before, after;
    ASSERT_TRUE(group->Snapshot(before));
    TouchOneBytePerPage(mem, pages, page);
    ASSERT_TRUE(group->Snapshot(after));
    const GroupDelta d = Delta(before, after, group->size());
    EXPECT_EQ(d.counts[0], static_cast<double>(pages)) << pages << " pages";
    EXPECT_EQ(d.counts[1], static_cast<double>(pages)) << pages << " pages";
    EXPECT_EQ(d.counts[2], 0.0);
    EXPECT_EQ(d.time_enabled, d.time_running);
    munmap(mem, pages * page);
  }
}

// A group turned off and on again (the turns of a split set) counts in
// every member, also in members on another PMU than the leader's: the page
// faults here are perf_swevent's, the leader is perf_task_clock's and
// cpu-clock perf_cpu_clock's. Enabling the members one by one (the ioctl
// with PERF_IOC_FLAG_GROUP) left those off the PMU until the thread was
// next switched in, so almost every round read 0 faults, the leader's
// times saying it ran. Each round checks exact counts right after the
// enable; while the group is off, no member counts.
TEST(CounterGroupTest, EveryMemberCountsAfterDisableAndEnable) {
  absl::StatusOr<CounterGroup> group =
      OpenGroup("task-clock,page-faults,cpu-clock,minor-faults:u");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  constexpr size_t kPages = 17;
  for (int round = 0; round < 20; ++round) {
    char* mem = static_cast<char*>(mmap(nullptr, 2 * kPages * page,
                                        PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(mem, MAP_FAILED);
    madvise(mem, 2 * kPages * page, MADV_NOHUGEPAGE);
    GroupSnapshot off_start, off_stop, before, after;
    ASSERT_TRUE(group->Disable().ok());
    ASSERT_TRUE(group->Snapshot(off_start));
    TouchOneBytePerPage(mem, kPages, page);
    ASSERT_TRUE(group->Snapshot(off_stop));
    ASSERT_TRUE(group->Enable().ok());
    ASSERT_TRUE(group->Snapshot(before));
    TouchOneBytePerPage(mem + kPages * page, kPages, page);
    ASSERT_TRUE(group->Snapshot(after));
    munmap(mem, 2 * kPages * page);
    const GroupDelta off = Delta(off_start, off_stop, group->size());
    const GroupDelta on = Delta(before, after, group->size());
    for (int i = 0; i < group->size(); ++i) {
      EXPECT_EQ(off.counts[i], 0.0) << "round " << round << ", event " << i;
    }
    EXPECT_GT(on.counts[0], 0.0) << "round " << round;
    EXPECT_EQ(on.counts[1], static_cast<double>(kPages)) << "round " << round;
    EXPECT_GT(on.counts[2], 0.0) << "round " << round << ": cpu-clock";
    EXPECT_EQ(on.counts[3], static_cast<double>(kPages)) << "round " << round;
    EXPECT_EQ(on.time_enabled, on.time_running);
    if (HasFailure()) break;  // one round's messages say it
  }
}

// Sleeps, so the thread is switched out: a context switch happens in the
// kernel only, so exclude_kernel would make it read 0 forever.
TEST(CounterGroupTest, ContextSwitchesCountTheKernelWithoutAModifier) {
  absl::StatusOr<CounterGroup> group =
      OpenGroup("context-switches,cpu-migrations,context-switches:u");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  if (geteuid() != 0 && PerfEventParanoid().value_or(2) > 1) {
    GTEST_SKIP() << "perf_event_paranoid keeps this user from counting the "
                    "kernel: kernel-side events fall back to user space only";
  }
  ASSERT_TRUE(group->events()[0].counts_kernel);
  EXPECT_EQ(group->events()[0].attr.exclude_kernel, 0u);
  EXPECT_TRUE(group->events()[1].counts_kernel);
  EXPECT_FALSE(group->events()[2].counts_kernel);  // explicit :u
  GroupSnapshot before, after;
  ASSERT_TRUE(group->Snapshot(before));
  for (int i = 0; i < 3; ++i) {
    const timespec pause{0, 50'000};  // 50 us
    nanosleep(&pause, nullptr);
  }
  ASSERT_TRUE(group->Snapshot(after));
  const GroupDelta d = Delta(before, after, 3);
  EXPECT_GE(d.counts[0], 1.0);
  EXPECT_EQ(d.counts[2], 0.0);  // a switch is never in user mode
}

// read(2) from /dev/zero into fresh pages faults them in kernel mode
// (copy_to_user): the thread's faults all the same, as perf stat counts.
TEST(CounterGroupTest, PageFaultsTakenInKernelModeAreCounted) {
  absl::StatusOr<CounterGroup> group = OpenGroup("page-faults,page-faults:u");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  if (geteuid() != 0 && PerfEventParanoid().value_or(2) > 1) {
    GTEST_SKIP() << "perf_event_paranoid keeps this user from counting the "
                    "kernel: kernel-side events fall back to user space only";
  }
  ASSERT_TRUE(group->events()[0].counts_kernel);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  constexpr size_t kPages = 4;
  char* mem =
      static_cast<char*>(mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(mem, MAP_FAILED);
  madvise(mem, kPages * page, MADV_NOHUGEPAGE);
  const int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(zero, 0);
  GroupSnapshot before, after;
  ASSERT_TRUE(group->Snapshot(before));
  // The raw syscall: a sanitizer's read() interceptor would touch the
  // buffer's shadow from user space first.
  const long got = syscall(SYS_read, zero, mem, kPages * page);
  ASSERT_TRUE(group->Snapshot(after));
  close(zero);
  ASSERT_EQ(got, static_cast<long>(kPages * page));
  const GroupDelta d = Delta(before, after, 2);
  EXPECT_EQ(d.counts[0], static_cast<double>(kPages));
  EXPECT_EQ(d.counts[1], 0.0);
  munmap(mem, kPages * page);
}

TEST(CounterGroupTest, KernelSideEventsFallBackToUserSpaceWhereNotPermitted) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to user nobody";
  const std::optional<int> paranoid = PerfEventParanoid();
  if (!paranoid || *paranoid < 2) {
    GTEST_SKIP() << "perf_event_paranoid < 2 lets everyone count the kernel";
  }
  const std::vector<ResolvedEvent> events =
      Resolve("context-switches,page-faults,task-clock");
  int exit_code = 0;
  const std::string out = RunInChild(
      [&] {
        if (setgid(65534) != 0 || setuid(65534) != 0)
          return std::string("setuid");
        absl::StatusOr<CounterGroup> g = CounterGroup::Open(events, {});
        if (!g.ok()) return g.status().ToString();
        std::string result = "OPENED";
        for (const OpenedEvent& e : g->events()) {
          result += absl::StrCat(" ", e.event.spec, "=", e.counts_kernel, "/",
                                 e.attr.exclude_kernel);
        }
        return result;
      },
      &exit_code);
  ASSERT_EQ(exit_code, 0);
  EXPECT_EQ(out, "OPENED context-switches=0/1 page-faults=0/1 task-clock=0/1");
}

TEST(CounterGroupTest, TaskClockTracksThreadCpuTime) {
  absl::StatusOr<CounterGroup> group = OpenGroup("task-clock");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  GroupSnapshot before, after;
  const uint64_t cpu_before = ThreadCpuNanos();
  ASSERT_TRUE(group->Snapshot(before));
  Spin(20'000'000);
  ASSERT_TRUE(group->Snapshot(after));
  const uint64_t cpu_after = ThreadCpuNanos();
  const GroupDelta d = Delta(before, after, 1);
  const double ratio =
      d.counts[0] / static_cast<double>(cpu_after - cpu_before);
  // Both measure this thread's CPU time in ns; only the clock sources differ.
  EXPECT_GT(ratio, 0.8);
  EXPECT_LT(ratio, 1.25);
  EXPECT_GT(d.time_enabled, 0u);
  EXPECT_EQ(d.time_enabled, d.time_running);  // pinned: never multiplexed
}

TEST(CounterGroupTest, MsrTscCountsAndIncreasesInASoftwareLedGroup) {
  if (!HasMsrTsc()) GTEST_SKIP() << "no msr PMU with a tsc event in sysfs";
  absl::StatusOr<CounterGroup> group = OpenGroup("task-clock,msr/tsc/");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  // msr has PERF_PMU_CAP_NO_EXCLUDE: opened without the exclude bits.
  EXPECT_TRUE(group->events()[1].exclude_bits_cleared);
  EXPECT_EQ(group->events()[1].attr.exclude_kernel, 0u);
  EXPECT_FALSE(group->events()[0].exclude_bits_cleared);
  GroupSnapshot a, b, c;
  const uint64_t outer_start = RdtscInstruction{}();
  ASSERT_TRUE(group->Snapshot(a));
  Spin(2'000'000);
  ASSERT_TRUE(group->Snapshot(b));
  const uint64_t outer_stop = RdtscInstruction{}();
  Spin(2'000'000);
  ASSERT_TRUE(group->Snapshot(c));
  const double first = Delta(a, b, 2).counts[1];
  EXPECT_GT(first, 0.0);
  // The msr event counts only while this thread runs, inside the rdtsc pair.
  EXPECT_LE(first, static_cast<double>(outer_stop - outer_start));
  EXPECT_GT(c.counts[1], b.counts[1]);
}

TEST(CounterGroupTest, MsrRefusesAUserOrKernelModifierItCannotHonour) {
  if (!HasMsrTsc()) GTEST_SKIP() << "no msr PMU with a tsc event in sysfs";
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  for (const char* spec : {"msr/tsc/:u", "msr/tsc/:k", "msr/tsc/u"}) {
    absl::StatusOr<CounterGroup> group =
        OpenGroup(absl::StrCat("task-clock,", spec));
    SKIP_IF_NOT_PERMITTED(group.status());
    ASSERT_FALSE(group.ok()) << spec << " opened and would count both";
    EXPECT_EQ(group.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(group.status().message(),
                HasSubstr(absl::StrCat("\"", spec, "\"")));
    EXPECT_THAT(group.status().message(),
                HasSubstr("cannot separate user and kernel"));
    EXPECT_THAT(group.status().message(), HasSubstr("(write msr/tsc/)"));
  }
  absl::StatusOr<CounterGroup> colon = OpenGroup("msr/tsc/:u");
  EXPECT_THAT(colon.status().message(), HasSubstr("drop ':u'"));
  // :uk asks for both, which is what msr counts.
  absl::StatusOr<CounterGroup> both = OpenGroup("msr/tsc/:uk");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_TRUE(both->events()[0].exclude_bits_cleared);
  EXPECT_TRUE(both->events()[0].counts_kernel);
}

TEST(CounterGroupTest, MsrTscCanLeadAGroup) {
  if (!HasMsrTsc()) GTEST_SKIP() << "no msr PMU with a tsc event in sysfs";
  absl::StatusOr<CounterGroup> group = OpenGroup("msr/tsc/,page-faults");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  GroupSnapshot a, b;
  ASSERT_TRUE(group->Snapshot(a));
  Spin(1'000'000);
  ASSERT_TRUE(group->Snapshot(b));
  EXPECT_GT(Delta(a, b, 2).counts[0], 0.0);
}

TEST(CounterGroupTest, ReadPathMakesOneSyscallPerSnapshotWhateverTheSize) {
  for (const char* specs :
       {"task-clock", "task-clock,page-faults,context-switches",
        "task-clock,page-faults,context-switches,cpu-migrations,minor-faults,"
        "major-faults"}) {
    absl::StatusOr<CounterGroup> group = OpenGroup(specs);
    SKIP_IF_NOT_PERMITTED(group.status());
    ASSERT_TRUE(group.ok()) << group.status();
    GroupSnapshot snap;
    const uint64_t before = group->read_syscalls();
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(group->Snapshot(snap));
      EXPECT_TRUE(snap.used_read_syscall);
    }
    EXPECT_EQ(group->read_syscalls() - before, 10u) << specs;
  }
}

TEST(CounterGroupTest, HardwareEventsGiveTheNoPmuErrorWithoutACorePmu) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  if (pmus->HasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a core PMU (" << pmus->CorePmu()->name
                 << "): hardware events open here";
  }
  for (const char* spec :
       {"cycles", "instructions", "L1-dcache-load-misses", "r00c0"}) {
    absl::StatusOr<CounterGroup> group = OpenGroup(spec);
    ASSERT_FALSE(group.ok()) << spec;
    EXPECT_EQ(group.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(group.status().message(), HasSubstr(spec));
    EXPECT_THAT(group.status().message(), HasSubstr("ENOENT"));
    EXPECT_THAT(group.status().message(), HasSubstr("no hardware PMU"));
    EXPECT_THAT(group.status().message(), HasSubstr("task-clock"));
  }
}

TEST(CounterGroupTest, UnprivilegedKernelCountingNamesParanoidAndCapPerfmon) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to user nobody";
  const std::optional<int> paranoid = PerfEventParanoid();
  if (!paranoid || *paranoid < 2) {
    GTEST_SKIP() << "perf_event_paranoid is "
                 << (paranoid ? std::to_string(*paranoid) : "unreadable")
                 << "; kernel counting is allowed to everyone below 2";
  }
  const std::vector<ResolvedEvent> kernel = Resolve("task-clock:k");
  const std::vector<ResolvedEvent> both = Resolve("task-clock:uk");
  const std::vector<ResolvedEvent> user = Resolve("task-clock:u");
  int exit_code = 0;
  const std::string out = RunInChild(
      [&] {
        if (setgid(65534) != 0 || setuid(65534) != 0) {
          return std::string("setuid failed: ") + std::strerror(errno);
        }
        std::string result;
        for (const auto* events : {&kernel, &both}) {
          absl::StatusOr<CounterGroup> g = CounterGroup::Open(*events, {});
          result +=
              g.ok() ? "OPENED\n" : std::string(g.status().ToString()) + "\n";
        }
        absl::StatusOr<CounterGroup> u = CounterGroup::Open(user, {});
        result += u.ok() ? "USER-OK\n" : "USER-FAILED " + u.status().ToString();
        return result;
      },
      &exit_code);
  ASSERT_EQ(exit_code, 0);
  EXPECT_THAT(out, Not(HasSubstr("OPENED")));
  EXPECT_THAT(out, Not(HasSubstr("setuid failed")));
  EXPECT_THAT(out, HasSubstr("PERMISSION_DENIED"));
  EXPECT_THAT(out, HasSubstr("perf_event_paranoid"));
  EXPECT_THAT(out, HasSubstr("CAP_PERFMON"));
  EXPECT_THAT(out, HasSubstr("task-clock:k"));
  EXPECT_THAT(out, HasSubstr("task-clock:uk"));
  // User-space counting stays allowed at paranoid 2.
  EXPECT_THAT(out, HasSubstr("USER-OK"));
}

TEST(CounterGroupTest, RunningOutOfFileDescriptorsNamesTheLimit) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  const std::vector<ResolvedEvent> events =
      Resolve("task-clock,page-faults,context-switches");
  int exit_code = 0;
  const std::string out = RunInChild(
      [&] {
        // The lowest free fd is the only one the limit leaves: the leader
        // opens, the first member hits EMFILE.
        const int lowest = dup(0);
        close(lowest);
        const rlimit limit{static_cast<rlim_t>(lowest + 1),
                           static_cast<rlim_t>(lowest + 1)};
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
          return std::string("setrlimit");
        absl::StatusOr<CounterGroup> g = CounterGroup::Open(events, {});
        return g.ok() ? std::string("OPENED") : g.status().ToString();
      },
      &exit_code);
  ASSERT_EQ(exit_code, 0);
  EXPECT_THAT(out, HasSubstr("RESOURCE_EXHAUSTED"));
  EXPECT_THAT(out, HasSubstr("EMFILE"));
  EXPECT_THAT(out, HasSubstr("ulimit -n"));
  EXPECT_THAT(out, HasSubstr("page-faults"));  // the member that failed
}

TEST(CounterGroupTest, MoveTransfersTheCountersAndEmptiesTheSource) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  absl::StatusOr<CounterGroup> opened = OpenGroup("task-clock,page-faults");
  ASSERT_TRUE(opened.ok()) << opened.status();
  CounterGroup group = *std::move(opened);
  GroupSnapshot a, b;
  ASSERT_TRUE(group.Snapshot(a));
  CounterGroup moved(std::move(group));
  EXPECT_FALSE(group.Snapshot(b));  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(group.Health().code(), absl::StatusCode::kFailedPrecondition);
  Spin(1'000'000);
  ASSERT_TRUE(moved.Snapshot(b));
  EXPECT_GT(Delta(a, b, 2).counts[0], 0.0);  // the same counters, still running

  absl::StatusOr<CounterGroup> other = OpenGroup("context-switches");
  ASSERT_TRUE(other.ok());
  moved = *std::move(other);  // closes the two-event group
  EXPECT_EQ(moved.size(), 1);
  EXPECT_TRUE(moved.Health().ok());
  ASSERT_TRUE(moved.Snapshot(a));
}

TEST(CounterGroupTest, ClosingReleasesEveryFileDescriptor) {
  PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
  const int before = dup(0);
  close(before);
  {
    absl::StatusOr<CounterGroup> group =
        OpenGroup("task-clock,page-faults,context-switches");
    ASSERT_TRUE(group.ok());
  }
  const int after = dup(0);
  close(after);
  EXPECT_EQ(before, after);
}

TEST(CounterGroupTest, RejectsEmptyAndOversizedGroups) {
  EXPECT_EQ(CounterGroup::Open({}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<ResolvedEvent> many(kMaxGroupEvents + 1,
                                  Resolve("task-clock").at(0));
  absl::StatusOr<CounterGroup> group = CounterGroup::Open(many, {});
  EXPECT_EQ(group.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(group.status().message(), HasSubstr("at most"));
}

TEST(DeltaTest, ScalesMultiplexedCountsAndReportsTheFraction) {
  GroupSnapshot a, b;
  a.counts[0] = 100;
  b.counts[0] = 1100;
  a.counts[1] = 50;
  b.counts[1] = 40;  // went backwards: a read error, never a huge count
  a.time_enabled = 1000;
  b.time_enabled = 5000;
  a.time_running = 1000;
  b.time_running = 3000;
  const GroupDelta d = Delta(a, b, 2);
  EXPECT_EQ(d.size, 2);
  EXPECT_EQ(d.time_enabled, 4000u);
  EXPECT_EQ(d.time_running, 2000u);
  EXPECT_DOUBLE_EQ(RunningFraction(d.time_enabled, d.time_running), 0.5);
  EXPECT_DOUBLE_EQ(d.counts[0], 2000.0);
  EXPECT_DOUBLE_EQ(d.counts[1], 0.0);
}

TEST(DeltaTest, NoElapsedTimeKeepsTheRawCount) {
  GroupSnapshot a, b;
  b.counts[0] = 7;
  const GroupDelta d = Delta(a, b, 1);
  EXPECT_EQ(d.counts[0], 7.0);
  EXPECT_EQ(RunningFraction(d.time_enabled, d.time_running), 1.0);
}

// ---- Tests that need a core (hardware) PMU; they skip here otherwise. ----

std::string NoCorePmuReason() {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  if (pmus.ok() && pmus->HasHardwarePmu()) return "";
  return "no hardware PMU: no core PMU (cpu, cpu_core, armv8_*, ...) under "
         "/sys/bus/event_source/devices (a VM without a virtual PMU?)";
}

TEST(HardwareCounterGroupTest, CyclesAndInstructionsCountThroughRdpmc) {
  if (std::string why = NoCorePmuReason(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<CounterGroup> group = OpenGroup("cycles,instructions");
  SKIP_IF_NOT_PERMITTED(group.status());
  ASSERT_TRUE(group.ok()) << group.status();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  const OpenedEvent& cycles = group->events()[0];
  // The knob of this architecture is off: read(2), and the notice says how
  // to turn it on.
  if ((HostArch() == Arch::kArm64 && PerfUserAccess().value_or(0) == 0) ||
      (HostArch() == Arch::kX86_64 && pmus->RdpmcSetting().value_or(1) == 0)) {
    EXPECT_EQ(cycles.read_method, ReadMethod::kRead);
    EXPECT_THAT(
        cycles.read_fallback_reason,
        HasSubstr(HostArch() == Arch::kArm64 ? "perf_user_access" : "/rdpmc"));
    GTEST_SKIP() << cycles.read_fallback_reason;
  }
  EXPECT_EQ(cycles.read_method, ReadMethod::kRdpmc)
      << cycles.read_fallback_reason;
  EXPECT_EQ(cycles.read_fallback_reason, "");
  GroupSnapshot a, b;
  ASSERT_TRUE(group->Snapshot(a));
  EXPECT_FALSE(a.used_read_syscall);
  Spin(1'000'000);
  ASSERT_TRUE(group->Snapshot(b));
  const GroupDelta d = Delta(a, b, 2);
  EXPECT_GT(d.counts[0], 100000.0);
  EXPECT_GT(d.counts[1], 100000.0);
  // The same events through the forced read(2) path count the same work.
  GroupOptions read_only;
  read_only.use_rdpmc = false;
  absl::StatusOr<CounterGroup> slow = OpenGroup("instructions", read_only);
  ASSERT_TRUE(slow.ok()) << slow.status();
  EXPECT_EQ(slow->events()[0].read_method, ReadMethod::kRead);
  GroupSnapshot d0, d1;
  ASSERT_TRUE(slow->Snapshot(d0));
  Spin(1'000'000);
  ASSERT_TRUE(slow->Snapshot(d1));
  EXPECT_TRUE(d1.used_read_syscall);
  EXPECT_GT(Delta(d0, d1, 1).counts[0], 100000.0);
}

TEST(HardwareCounterGroupTest, OverfullPinnedGroupReportsErrorState) {
  if (std::string why = NoCorePmuReason(); !why.empty()) GTEST_SKIP() << why;
  const std::optional<int> counters = GeneralPurposeCounterCount();
  if (!counters) GTEST_SKIP() << "CPUID does not tell the counter count";
  // Two pinned groups that each fill every general counter: the second
  // cannot be scheduled alongside the first and goes into error state.
  const std::vector<ResolvedEvent> events(*counters,
                                          Resolve("branch-misses").at(0));
  absl::StatusOr<CounterGroup> first = CounterGroup::Open(events, {});
  if (!first.ok())
    GTEST_SKIP() << "first group did not open: " << first.status();
  absl::StatusOr<CounterGroup> second = CounterGroup::Open(events, {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition)
      << second.status();
  EXPECT_THAT(second.status().message(), HasSubstr("error state"));
  EXPECT_THAT(second.status().message(), HasSubstr("drop"));
}

// Grows a pinned group behind a cycles leader until the PMU refuses it, on
// any architecture and without knowing the counter count: the refusal names
// counters, and in error state the advice names an event that frees a
// general-purpose counter, never cycles (its own counter on arm64 and x86).
TEST(HardwareCounterGroupTest, OverfullGroupAdviceNeverNamesCycles) {
  if (std::string why = NoCorePmuReason(); !why.empty()) GTEST_SKIP() << why;
  // x86 may put instructions on a fixed counter too; branch-misses never.
  const char* filler =
      HostArch() == Arch::kX86_64 ? "branch-misses" : "instructions";
  std::vector<ResolvedEvent> events = {Resolve("cycles").at(0)};
  const ResolvedEvent member = Resolve(filler).at(0);
  absl::Status failure;
  while (failure.ok() && static_cast<int>(events.size()) < kMaxGroupEvents) {
    events.push_back(member);
    absl::StatusOr<CounterGroup> group = CounterGroup::Open(events, {});
    failure = group.status();
  }
  SKIP_IF_NOT_PERMITTED(failure);
  ASSERT_FALSE(failure.ok()) << kMaxGroupEvents << " events fit at once";
  std::printf("refused at %zu events: %s\n", events.size(),
              std::string(failure.message()).c_str());
  EXPECT_THAT(failure.message(), HasSubstr("counters"));
  if (absl::IsFailedPrecondition(failure)) {
    EXPECT_THAT(failure.message(), HasSubstr("error state"));
    EXPECT_THAT(failure.message(), HasSubstr(absl::StrCat("e.g. \"", filler)));
    EXPECT_THAT(failure.message(), Not(HasSubstr("e.g. \"cycles\"")));
  } else {
    EXPECT_EQ(failure.code(), absl::StatusCode::kInvalidArgument) << failure;
  }
}

}  // namespace
}  // namespace pmubench::perf
