// SameCpuOnArm64: while alive, keeps the calling thread, and the threads it
// starts (they inherit the affinity), on the CPU it runs on now, on arm64.
//
// The mmap-page reads order their loads with a compiler barrier only, as
// the perf_event_mmap_page comment in linux/perf_event.h does: the kernel
// writes an event's page on the CPU the counted thread runs on. A test whose
// writer thread stands in for the kernel keeps it on the reader's CPU there.
// x86-64 keeps loads in order, so there the writer may run on another CPU.
#ifndef PMUBENCH_TESTS_PERF_SAME_CPU_ON_ARM64_H_
#define PMUBENCH_TESTS_PERF_SAME_CPU_ON_ARM64_H_

#include <sched.h>

namespace pmubench::perf {

class SameCpuOnArm64 {
 public:
  SameCpuOnArm64() {
#if defined(__aarch64__)
    sched_getaffinity(0, sizeof(saved_), &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof(one), &one);
#endif
  }
  ~SameCpuOnArm64() {
#if defined(__aarch64__)
    sched_setaffinity(0, sizeof(saved_), &saved_);
#endif
  }
  SameCpuOnArm64(const SameCpuOnArm64&) = delete;
  SameCpuOnArm64& operator=(const SameCpuOnArm64&) = delete;

 private:
  cpu_set_t saved_{};
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_TESTS_PERF_SAME_CPU_ON_ARM64_H_
