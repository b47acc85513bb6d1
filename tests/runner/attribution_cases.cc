// Cases for compare's attribution under --pmubench_simulate, end to end
// (tests/python/test_attribution_simulate.py), built as a base and as a
// "longer" commit (PMUBENCH_LONGER=1):
//   BM_Three    splits its work between StepA, StepB and StepC (30, 50 and
//               20 nops); the longer build adds 25 to StepB only.
//   BM_Steady   the same in both builds.
//   BM_Inlined  calls Caller(), into which InlinedHelper()
//               (attribution_helper.h) is inlined; the longer build gives
//               the helper 16 nops more.
#include <pmubench/pmubench.h>

#ifndef PMUBENCH_LONGER
#define PMUBENCH_LONGER 0
#endif
#define PMUBENCH_HELPER_NOPS (40 + 16 * PMUBENCH_LONGER)
#include "tests/runner/attribution_helper.h"

#define PMUBENCH_NOPS(n) asm volatile(PMUBENCH_HELPER_ASM(n))

__attribute__((noinline)) void StepA() { PMUBENCH_NOPS(30); }
__attribute__((noinline)) void StepB() {
  PMUBENCH_NOPS(50 + 25 * PMUBENCH_LONGER);
}
__attribute__((noinline)) void StepC() { PMUBENCH_NOPS(20); }
__attribute__((noinline)) void Caller() {
  InlinedHelper();
  PMUBENCH_NOPS(10);
}

namespace {

void BM_Three(pmubench::State& state) {
  for (auto _ : state) {
    StepA();
    StepB();
    StepC();
  }
}
PMU_BENCHMARK(BM_Three);

void BM_Steady(pmubench::State& state) {
  for (auto _ : state) StepC();
}
PMU_BENCHMARK(BM_Steady);

void BM_Inlined(pmubench::State& state) {
  for (auto _ : state) Caller();
}
PMU_BENCHMARK(BM_Inlined);

}  // namespace
