// A suite of two cases for ci_compare.sh --simulate's end-to-end test
// (tests/python/test_ci_compare_simulate.py): BM_Kernel runs 100 nops per
// iteration (102 instructions with the loop), plus PMUBENCH_EXTRA_NOPS more
// in the "slower" build; BM_Steady runs 50 in both.
#include <pmubench/pmubench.h>

#ifndef PMUBENCH_EXTRA_NOPS
#define PMUBENCH_EXTRA_NOPS 0
#endif
#define PMUBENCH_TEXT(x) #x
#define PMUBENCH_NOPS_ASM(n) ".rept " PMUBENCH_TEXT(n) "\n\tnop\n\t.endr"

namespace {

void BM_Kernel(pmubench::State& state) {
  for (auto _ : state)
    asm volatile(PMUBENCH_NOPS_ASM(100 + PMUBENCH_EXTRA_NOPS));
}
PMU_BENCHMARK(BM_Kernel);

void BM_Steady(pmubench::State& state) {
  for (auto _ : state) asm volatile(PMUBENCH_NOPS_ASM(50));
}
PMU_BENCHMARK(BM_Steady);

}  // namespace
