// The thread's counter groups (thread_groups.h): one case's group at a time
// on a thread, none for cases the filter excludes, none left open by
// Prepare's probes, and a hybrid machine's thread pinned before it opens.
// A real PMU has 4-8 counters, so pinned groups of cases that are not
// running would push the running case's group into error state. Measured
// here with real software events: the perf_event fds the process holds
// (/proc/self/fd links to anon_inode:[perf_event]) while each case runs.
#include "framework/runner/measure/thread_groups.h"

#include <pmubench/pmubench.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "framework/perf/events/pmu.h"
#include "framework/runner/plan/event_set.h"
#include "framework/runner/session/session.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/counting_test.h"
#include "tests/runner/perf_fds.h"
#include "tests/runner/run_capture.h"

namespace pmubench {
namespace {

using ::pmubench::testing::BenchRun;
using ::pmubench::testing::OpenPerfFds;
using ::pmubench::testing::RunMatching;

// The most perf fds seen inside any batch of the BM_Sched* cases.
std::atomic<int> max_fds_in_batch{0};

void RecordFds() {
  const int now = OpenPerfFds();
  int seen = max_fds_in_batch.load();
  while (now > seen && !max_fds_in_batch.compare_exchange_weak(seen, now)) {
  }
}

void BM_SchedOne(State& state) {
  RecordFds();
  for (auto _ : state) benchmark::ClobberMemory();
}
void BM_SchedTwo(State& state) {
  RecordFds();
  for (auto _ : state) benchmark::ClobberMemory();
}
void BM_SchedFiltered(State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}

// Three sets of one event each, found nowhere else in this binary.
constexpr char kOne[] = "cpu-migrations";
constexpr char kTwo[] = "major-faults";
constexpr char kFiltered[] = "emulation-faults";
PMU_BENCHMARK_WITH_COUNTERS(BM_SchedOne, kOne)->Iterations(10)->Repetitions(3);
PMU_BENCHMARK_WITH_COUNTERS(BM_SchedTwo, kTwo)->Iterations(10)->Repetitions(3);
PMU_BENCHMARK_WITH_COUNTERS(BM_SchedFiltered, kFiltered)->Iterations(10);

std::string KeyOf(const char* specs) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  EXPECT_TRUE(pmus.ok());
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet(specs, *pmus, {});
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? set->key : "";
}

using ThreadGroupsTest = ::pmubench::testing::CountingTest;

TEST_F(ThreadGroupsTest, OneGroupAtATimeAndNoneForFilteredOutCases) {
  const std::string filter = "^BM_Sched(One|Two)/";
  const int one_before = internal::TimesOpened(KeyOf(kOne));
  const int two_before = internal::TimesOpened(KeyOf(kTwo));
  const int filtered_before = internal::TimesOpened(KeyOf(kFiltered));
  internal::CloseThreadGroup();

  absl::StatusOr<SessionInfo> info = Prepare({.filter = filter});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(OpenPerfFds(), 0) << "Prepare's probes leave nothing open";

  max_fds_in_batch = 0;
  const std::vector<BenchRun> runs = RunMatching(filter);
  ASSERT_EQ(runs.size(), 2u * (3 + 4)) << "3 repetitions and 4 aggregates";
  for (const BenchRun& run : runs) {
    EXPECT_FALSE(run.error_occurred) << run.error_message;
  }
  // Each case counts one event: one fd in the process while it runs, not
  // the other case's too; and the two task-clock events that watch the
  // batch for threads the case starts (perf/counting/child_tasks.h).
  EXPECT_EQ(max_fds_in_batch.load(), 1 + 2);
  EXPECT_LE(internal::OpenThreadGroupCount(), 1);
  // Each set: one probe and one open for all three repetitions.
  EXPECT_EQ(internal::TimesOpened(KeyOf(kOne)) - one_before, 2);
  EXPECT_EQ(internal::TimesOpened(KeyOf(kTwo)) - two_before, 2);
  EXPECT_EQ(internal::TimesOpened(KeyOf(kFiltered)) - filtered_before, 0)
      << "the filtered-out case's set was opened";
  ASSERT_TRUE(
      Prepare({.counters = "task-clock,page-faults,context-switches"}).ok());
}

// A hybrid machine's measuring thread is pinned before its group opens: a
// set with cpus pins the thread that opens it (here CPU 0, on a thread of
// its own so the test's thread stays free).
TEST_F(ThreadGroupsTest, SetWithCpusPinsTheOpeningThread) {
  absl::StatusOr<perf::PmuRegistry> pmus = perf::PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<internal::EventSet> set =
      internal::MakeEventSet("task-clock", *pmus, {});
  ASSERT_TRUE(set.ok());
  set->cpus = {0};
  bool opened = false;
  int allowed = -1;
  int on_cpu = -1;
  std::thread worker([&] {
    opened = internal::ThreadGroupFor(*set).ok();
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
      allowed = CPU_COUNT(&mask);
    }
    on_cpu = sched_getcpu();
  });
  worker.join();
  EXPECT_TRUE(opened);
  EXPECT_EQ(allowed, 1);
  EXPECT_EQ(on_cpu, 0);
}

}  // namespace
}  // namespace pmubench
