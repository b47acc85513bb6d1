// Cases for runner_e2e_tests, which runs this binary (linked with
// pmubench_main) as a subprocess and checks exit codes, notices and the JSON
// file.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pmubench/pmubench.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/runner/fresh_pages.h"

namespace {

// PMUBENCH_TEST_DENY_PERF_EVENT_OPEN=1 makes every perf_event_open(2) of
// this process fail with EACCES, as it does for an unprivileged user under
// perf_event_paranoid 3 (Debian's kernels) or a container's seccomp profile:
// a seccomp filter installed before main, so Prepare meets the real error.
[[maybe_unused]] const bool kPerfEventOpenDenied = [] {
  const char* deny = std::getenv("PMUBENCH_TEST_DENY_PERF_EVENT_OPEN");
  if (deny == nullptr || deny[0] != '1') return false;
#if defined(__x86_64__)
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
      BPF_STMT(BPF_RET | BPF_K,
               SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program = {static_cast<unsigned short>(std::size(filter)), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    std::abort();
  }
  return true;
#else
  std::abort();  // the test skips on other architectures
#endif
}();

using pmubench::testing::FreshPages;

// range(0) fresh pages per iteration: exactly range(0) page faults each.
void BM_TouchPages(pmubench::State& state) {
  const auto per_iteration = static_cast<size_t>(state.range(0));
  FreshPages pages(per_iteration * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(per_iteration);
}
PMU_BENCHMARK(BM_TouchPages)->Arg(4)->Iterations(64);

// The same on each of two threads: 2 x range(0) page faults per iteration in
// all, each thread faulting its own pages.
void BM_ThreadsTouchPages(pmubench::State& state) {
  const auto per_iteration = static_cast<size_t>(state.range(0));
  FreshPages pages(per_iteration * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(per_iteration);
}
PMU_BENCHMARK(BM_ThreadsTouchPages)->Arg(4)->Iterations(32)->Threads(2);

// Fails mid-run; the other cases must still be reported and written.
void BM_Fails(pmubench::State& state) {
  for (auto _ : state) {
    state.SkipWithError("deliberate failure");
    break;
  }
}
PMU_BENCHMARK(BM_Fails)->Iterations(8);

// Its own events: reported instead of the default set.
void BM_OwnEvents(pmubench::State& state) {
  FreshPages pages(2 * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(2);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_OwnEvents, "page-faults,task-clock")
    ->Iterations(32);

// Hardware events: fall back to software events without a hardware PMU.
void BM_HardwareEvents(pmubench::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 3);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_HardwareEvents, "cycles,instructions")
    ->Iterations(1000);

// Short cases: 16 dependent multiply-adds, some 20 ns an iteration; 0.4 ms
// in all, and 40 ms (long against one batch's scheduling noise). A sampling
// interrupt every few microseconds takes longer than an iteration; one every
// second never comes.
void ShortSteps(pmubench::State& state) {
  uint64_t x = 1;
  for (auto _ : state) {
    for (int i = 0; i < 16; ++i) {
      x = x * 6364136223846793005u + 1442695040888963407u;
    }
    benchmark::DoNotOptimize(x);
  }
}
void BM_ShortSteps(pmubench::State& state) { ShortSteps(state); }
PMU_BENCHMARK(BM_ShortSteps)->Iterations(20000);
void BM_ShortStepsLong(pmubench::State& state) { ShortSteps(state); }
PMU_BENCHMARK(BM_ShortStepsLong)->Iterations(2000000);

// A plain Google Benchmark case in the same binary: time only.
void BM_Plain(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 3);
}
BENCHMARK(BM_Plain)->Iterations(1000);

// A user counter that is always 0: with repetitions its "cv" aggregate is
// 0/0, which Google Benchmark writes as a bare NaN.
void BM_ZeroCounter(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 3);
  state.counters["never"] = 0;
}
BENCHMARK(BM_ZeroCounter)->Iterations(100);

// Registered only when PMUBENCH_TEST_RUNNING_FILE is set: runs until killed
// (about 1000 s), creating that file first so a test knows it is running.
void BM_UntilKilled(benchmark::State& state) {
  if (FILE* f = std::fopen(std::getenv("PMUBENCH_TEST_RUNNING_FILE"), "w")) {
    std::fclose(f);
  }
  for (auto _ : state) usleep(1000);
}
[[maybe_unused]] const bool kUntilKilledRegistered = [] {
  if (std::getenv("PMUBENCH_TEST_RUNNING_FILE") == nullptr) return false;
  benchmark::RegisterBenchmark("BM_UntilKilled", BM_UntilKilled)
      ->Iterations(1000 * 1000);
  return true;
}();

// Registered only when PMUBENCH_TEST_RENAMED is set: BM_TouchPages with its
// own events, renamed with ->Name() to a name with '/' in it. It must count,
// print and profile as any other case does.
void BM_ToBeRenamed(pmubench::State& state) {
  const auto per_iteration = static_cast<size_t>(state.range(0));
  FreshPages pages(per_iteration * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(per_iteration);
}

[[maybe_unused]] const bool kRenamedRegistered = [] {
  if (std::getenv("PMUBENCH_TEST_RENAMED") == nullptr) return false;
  PMU_BENCHMARK_WITH_COUNTERS(BM_ToBeRenamed, "task-clock,page-faults")
      ->Name("BM_Renamed/with/slashes")
      ->Arg(4)
      ->Iterations(64);
  return true;
}();

// Registered only when PMUBENCH_TEST_HOSTILE_NAMES is set: a PMU case whose
// name (->Name) and label (SetLabel) hold every byte value, 1..255 then 0
// (Google Benchmark writes both as C strings: a 0 ends them), and one named
// with every printable ASCII character and some UTF-8, which must come back
// unchanged.
std::string EveryByte() {
  std::string bytes;
  for (int b = 1; b < 256; ++b) bytes += static_cast<char>(b);
  return bytes + std::string(1, '\0') + "after-nul";
}

void BM_HostileLabel(pmubench::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 3);
  state.SetLabel(EveryByte());
}

std::string Printable() {
  std::string text;
  for (char c = ' '; c <= '~'; ++c) text += c;
  return text + "\xc3\xa9\xe5\x90\x8d\xf0\x9f\x98\x80";  // é名😀
}

[[maybe_unused]] const bool kHostileNamesRegistered = [] {
  if (std::getenv("PMUBENCH_TEST_HOSTILE_NAMES") == nullptr) return false;
  PMU_BENCHMARK(BM_HostileLabel)
      ->Name("BM_AllBytes_" + EveryByte())
      ->Iterations(8);
  PMU_BENCHMARK(BM_HostileLabel)
      ->Name("BM_Printable_" + Printable())
      ->Iterations(8);
  return true;
}();

}  // namespace
