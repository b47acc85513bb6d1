// Kernel interaction: page faults and system calls. These counters are
// software events, so this family counts on every Linux machine, also in a VM
// without a hardware PMU, and its page-fault counts are exact.
//
// BM_FirstTouch/<pages>: each iteration maps <pages> fresh anonymous 4 KiB
// pages, writes one byte to each, and unmaps them. Every first write faults:
// page-faults (and minor-faults) per iteration equal <pages> exactly, shown
// beside them as the user counter expected_page_faults. This is the suite's
// machine-independent correctness anchor. Time per page is the fault path
// (trap, allocate, zero 4 KiB, map) plus a share of mmap/munmap.
// BM_PrefaultedTouch/<pages>: the same writes to memory that was populated
// once before the loop: 0 page faults, a few ns per page.
//
// Transparent huge pages (and multi-size THP) would satisfy many first touches
// with one fault, so the fresh mappings are marked MADV_NOHUGEPAGE.
//
// BM_SyscallGetpid, BM_ClockGettime and BM_ReadDevZero: the cost of a trip
// into the kernel. getpid goes through syscall(2) so no library caches it;
// clock_gettime(CLOCK_MONOTONIC) is served by the vDSO without entering the
// kernel when the clock source allows it (tsc, kvm-clock), so it should be
// several times cheaper (30 ns against 121 ns for getpid in the 2-core VM we
// develop on); read(2) of 64 bytes from /dev/zero adds a copy to user
// space. context-switches should read ~0 for all of them: a system call is
// not a context switch. On hardware with a PMU, note that cycles and
// instructions count user mode only (pmubench opens events with
// exclude_kernel=1): a getpid costs a few user instructions but hundreds of
// ns, the difference being kernel time (count `cycles:k` to see it, which
// needs perf_event_paranoid <= 1 or CAP_PERFMON).

#include <fcntl.h>
#include <pmubench/pmubench.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace pmubench::benches {
namespace {

constexpr char kFaultCounters[] = "page-faults,minor-faults,context-switches";
constexpr char kSyscallCounters[] = "cycles,instructions,context-switches";

size_t PageBytes() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// Writes one byte to each page, through volatile so every store is made.
inline void TouchPages(char* base, size_t pages, size_t page_bytes) {
  volatile char* bytes = base;
  for (size_t page = 0; page < pages; ++page) bytes[page * page_bytes] = 1;
}

void BM_FirstTouch(pmubench::State& state) {
  const size_t pages = static_cast<size_t>(state.range(0));
  const size_t page_bytes = PageBytes();
  const size_t bytes = pages * page_bytes;
  for (auto _ : state) {
    void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
      state.SkipWithError("mmap of the test region failed (out of memory?)");
      break;
    }
    // One fault per 4 KiB page, even where THP is "always". Best effort: a
    // kernel without THP rejects it with EINVAL and has nothing to disable.
    madvise(region, bytes, MADV_NOHUGEPAGE);
    TouchPages(static_cast<char*>(region), pages, page_bytes);
    munmap(region, bytes);
  }
  state.counters["expected_page_faults"] = static_cast<double>(pages);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(pages));
}
PMU_BENCHMARK_WITH_COUNTERS(BM_FirstTouch, kFaultCounters)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256);

void BM_PrefaultedTouch(pmubench::State& state) {
  const size_t pages = static_cast<size_t>(state.range(0));
  const size_t page_bytes = PageBytes();
  const size_t bytes = pages * page_bytes;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (region == MAP_FAILED) {
    state.SkipWithError("mmap of the test region failed (out of memory?)");
    return;
  }
  // MAP_POPULATE already faulted the pages in; touching them once more
  // guarantees it whatever the kernel did.
  TouchPages(static_cast<char*>(region), pages, page_bytes);
  for (auto _ : state) {
    TouchPages(static_cast<char*>(region), pages, page_bytes);
  }
  munmap(region, bytes);
  state.counters["expected_page_faults"] = 0;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(pages));
}
PMU_BENCHMARK_WITH_COUNTERS(BM_PrefaultedTouch, kFaultCounters)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256);

void BM_SyscallGetpid(pmubench::State& state) {
  for (auto _ : state) {
    long pid = syscall(SYS_getpid);
    benchmark::DoNotOptimize(pid);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_SyscallGetpid, kSyscallCounters);

void BM_ClockGettime(pmubench::State& state) {
  for (auto _ : state) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    benchmark::DoNotOptimize(now);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_ClockGettime, kSyscallCounters);

void BM_ReadDevZero(pmubench::State& state) {
  const int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    state.SkipWithError("open(/dev/zero) failed: is /dev mounted?");
    return;
  }
  char buffer[64];
  for (auto _ : state) {
    if (read(fd, buffer, sizeof(buffer)) !=
        static_cast<ssize_t>(sizeof(buffer))) {
      state.SkipWithError("read(/dev/zero) returned short");
      break;
    }
    benchmark::DoNotOptimize(buffer);
  }
  close(fd);
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(sizeof(buffer)));
}
PMU_BENCHMARK_WITH_COUNTERS(BM_ReadDevZero, kSyscallCounters);

}  // namespace
}  // namespace pmubench::benches
