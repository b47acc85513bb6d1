// Under callgrind with --cache-sim=yes --branch-sim=yes, puts the simulated
// caches and branch predictors in one fixed state, so that a batch's
// simulated misses depend on the case and the code only, not on what ran
// before it in the process (earlier cases, the console output with its
// times, the flags and path that chose the harness's code).
//
// Callgrind has one set of caches and one branch predictor for the whole
// process, and they learn whether collection is on or off. Its caches are
// emptied when instrumentation is switched off and on again (callgrind's
// set_instrument_state clears the cache simulator). Its predictors have no
// reset (cachegrind's cg_branchpred.c, which callgrind includes):
//   - conditional branches: 16,384 two-bit counters indexed by the last 7
//     outcomes of any branch and 7 bits of the branch's address (from bit 0
//     on x86-64, from bit 2 on arm64);
//   - indirect branches: 512 last targets indexed by 9 address bits.
// So this runs branches that set every one of them: each counter is driven
// to a value that depends on its index only, and each target to a fixed
// address (simulator_reset.cc says how).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SIMULATOR_RESET_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SIMULATOR_RESET_H_

namespace pmubench::internal {

// Whether this architecture has the branches that set the predictors
// (x86-64 and arm64). Elsewhere the reset only empties the caches: the
// simulated branch misses of a batch then follow what ran before it.
#if defined(__x86_64__) || defined(__aarch64__)
inline constexpr bool kPredictorResetAvailable = true;
#else
inline constexpr bool kPredictorResetAvailable = false;
#endif

// Empties callgrind's simulated caches and sets its branch predictors to
// their fixed state. Costs about 0.1 million instructions and a fresh
// translation of the code run afterwards; natively (or on other
// architectures) it runs the same branches, which do nothing.
void ResetSimulatedCachesAndPredictors();

// The branch outcome bits the conditional part runs, two 64-bit words per
// pass of 128 branches (exposed for its test): 3 x 127 + 1 passes of a
// 7-bit maximal-length sequence, then 4 passes of all-not-taken and 4 of
// all-taken.
const unsigned long long* PredictorResetBits(int* words);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SIMULATOR_RESET_H_
