// The inlined helper of attribution_cases.cc's BM_Inlined: always inlined
// into its caller, so callgrind counts it in the caller's function at this
// file's line (its "fi=" lines, the Valgrind manual's "Callgrind Format
// Specification").
#ifndef PMUBENCH_TESTS_RUNNER_ATTRIBUTION_HELPER_H_
#define PMUBENCH_TESTS_RUNNER_ATTRIBUTION_HELPER_H_

#ifndef PMUBENCH_HELPER_NOPS
#define PMUBENCH_HELPER_NOPS 40
#endif

#define PMUBENCH_HELPER_TEXT(x) #x
#define PMUBENCH_HELPER_ASM(n) \
  ".rept " PMUBENCH_HELPER_TEXT(n) "\n\tnop\n\t.endr"

__attribute__((always_inline)) inline void InlinedHelper() {
  asm volatile(PMUBENCH_HELPER_ASM(PMUBENCH_HELPER_NOPS));  // helper line
}

#endif  // PMUBENCH_TESTS_RUNNER_ATTRIBUTION_HELPER_H_
