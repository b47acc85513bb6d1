// Accuracy kernels: inline-assembly blocks whose instruction and branch counts
// are known exactly, so the counters can be checked against the truth. Each
// case reports the truth as user counters beside the measured ones:
//   expected_instructions  instructions retired per iteration;
//   expected_branches      branch instructions retired per iteration;
//   expected_cycles        (BM_AccuracyDependentAdds only) the latency bound.
// On hardware with a PMU, `instructions` and `branches` per iteration should
// equal them: the batch's start and stop add a few hundred instructions
// spread over millions of iterations. A visible gap means the read overhead
// correction or the counter setup is wrong. This family is x86-64 and arm64
// only (the same four cases, in each architecture's assembly).
//
// The expected counts include the measured loop's own instructions. pmubench's
// loop (framework/runner/measure/state.h) compiles to two instructions per
// iteration in an optimised build, a decrement and a conditional branch back:
//     x86-64:  sub $0x1,%rax ; jne <top>
//     arm64:   subs x0, x0, #0x1 ; b.ne <top>
// so kLoopInstructions = 2 and kLoopBranches = 1. BM_AccuracyEmptyLoop
// measures exactly that pair. The count was read off `objdump -d` of the
// g++ 12 -O2 build (aarch64-linux-gnu-objdump for arm64); a sanitizer or -O0
// build adds instructions and these expectations do not hold there.
//
// On arm64 the exact counts can be checked without arm64 hardware:
// `scripts/pmu-vm run -- build/arm64/benches/all --benchmark_filter=BM_Accuracy
// --counters=instructions,cycles` runs them on an emulated PMUv3 whose
// instruction count is exact (QEMU -icount).

#include <pmubench/pmubench.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__aarch64__)

namespace pmubench::benches {
namespace {

constexpr int kLoopInstructions = 2;
constexpr int kLoopBranches = 1;
constexpr char kAccuracyCounters[] = "instructions,branches,cycles";

void ReportExpected(pmubench::State& state, int block_instructions,
                    int block_branches) {
  state.counters["expected_instructions"] =
      kLoopInstructions + block_instructions;
  state.counters["expected_branches"] = kLoopBranches + block_branches;
}

// Nothing but the loop: an empty volatile asm keeps the loop from being
// deleted and emits no instruction.
void BM_AccuracyEmptyLoop(pmubench::State& state) {
  for (auto _ : state) asm volatile("");
  ReportExpected(state, 0, 0);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyEmptyLoop, kAccuracyCounters);

#if defined(__x86_64__)

// 100 single-byte nops: 100 instructions, no branches.
void BM_AccuracyNops(pmubench::State& state) {
  for (auto _ : state) asm volatile(".rept 100\n\tnop\n\t.endr");
  ReportExpected(state, 100, 0);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyNops, kAccuracyCounters);

// 100 unconditional jumps, each taken to the next instruction: 100
// instructions and 100 (taken) branches. `1:` may be defined repeatedly; `1f`
// names the next one. Only the counts are the point here: 100 taken jumps
// packed into 200 bytes run far slower than one per cycle (front-end limits),
// so do not read the time per iteration as a branch cost.
void BM_AccuracyTakenJumps(pmubench::State& state) {
  for (auto _ : state) asm volatile(".rept 100\n\tjmp 1f\n1:\n\t.endr");
  ReportExpected(state, 100, 100);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyTakenJumps, kAccuracyCounters);

// 100 register-to-register adds into one register, each needing the previous
// result: 100 instructions and, since an add has one cycle of latency on every
// x86-64 core, at least 100 cycles per iteration (the loop's own pair runs in
// parallel). The addend is a register, not an immediate: recent Intel cores
// (Golden Cove and later) fold chains of `add $imm` at register renaming,
// which ran 100 `addq $1` in ~6 ns here, far below 100 cycles.
void BM_AccuracyDependentAdds(pmubench::State& state) {
  uint64_t value = 0;
  uint64_t one = 1;
  for (auto _ : state) {
    asm volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(value) : "r"(one));
  }
  benchmark::DoNotOptimize(value);
  ReportExpected(state, 100, 0);
  state.counters["expected_cycles"] = 100;
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyDependentAdds, kAccuracyCounters);

#elif defined(__aarch64__)

// 100 nops (each one A64 instruction): 100 instructions, no branches.
void BM_AccuracyNops(pmubench::State& state) {
  for (auto _ : state) asm volatile(".rept 100\n\tnop\n\t.endr");
  ReportExpected(state, 100, 0);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyNops, kAccuracyCounters);

// 100 unconditional branches, each taken to the next instruction: 100
// instructions and 100 taken branches (BR_RETIRED / PC_WRITE_RETIRED count
// them where the PMU has those events).
void BM_AccuracyTakenJumps(pmubench::State& state) {
  for (auto _ : state) asm volatile(".rept 100\n\tb 1f\n1:\n\t.endr");
  ReportExpected(state, 100, 100);
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyTakenJumps, kAccuracyCounters);

// 100 dependent register adds into one register: 100 instructions and, with
// one cycle of latency per add (Arm's Neoverse and Cortex-A optimization
// guides), at least 100 cycles per iteration.
void BM_AccuracyDependentAdds(pmubench::State& state) {
  uint64_t value = 0;
  uint64_t one = 1;
  for (auto _ : state) {
    asm volatile(".rept 100\n\tadd %0, %0, %1\n\t.endr"
                 : "+r"(value)
                 : "r"(one));
  }
  benchmark::DoNotOptimize(value);
  ReportExpected(state, 100, 0);
  state.counters["expected_cycles"] = 100;
}
PMU_BENCHMARK_WITH_COUNTERS(BM_AccuracyDependentAdds, kAccuracyCounters);

#endif  // defined(__x86_64__) / defined(__aarch64__)

}  // namespace
}  // namespace pmubench::benches

#endif  // defined(__x86_64__) || defined(__aarch64__)
