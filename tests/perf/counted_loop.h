// A loop whose retired instruction count is known exactly, for tests that
// hold a real PMU to exact values: each iteration is 100 nops, a decrement
// and a conditional branch back, all in one asm block, so the compiler adds
// nothing inside it.
//
//   CountedLoop(n);   // retires kCountedLoopInstructions * n instructions,
//                     // plus a few of setup that do not depend on n
//
// Exact counts need a PMU that counts retired instructions exactly (QEMU's
// emulated PMUv3 with -icount does; real cores do for user-space loops that
// take no interrupt-driven detour). Compare two loop lengths to cancel the
// setup: count(n1) - count(n2) == kCountedLoopInstructions * (n1 - n2).
#ifndef PMUBENCH_TESTS_PERF_COUNTED_LOOP_H_
#define PMUBENCH_TESTS_PERF_COUNTED_LOOP_H_

#include <cstdint>

namespace pmubench::testing {

inline constexpr uint64_t kCountedLoopInstructions = 102;

// n must be at least 1. noinline: every call runs the same instructions.
[[gnu::noinline]] inline void CountedLoop(uint64_t n) {
#if defined(__aarch64__)
  asm volatile(
      "1:\n\t.rept 100\n\tnop\n\t.endr\n\t"
      "subs %0, %0, #1\n\tb.ne 1b"
      : "+r"(n)
      :
      : "cc");
#elif defined(__x86_64__)
  asm volatile(
      "1:\n\t.rept 100\n\tnop\n\t.endr\n\t"
      "sub $1, %0\n\tjne 1b"
      : "+r"(n)
      :
      : "cc");
#else
#error "CountedLoop: add this architecture's 100 nops, decrement and branch"
#endif
}

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_PERF_COUNTED_LOOP_H_
