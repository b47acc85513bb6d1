// Instruction-level parallelism: the same 8 arithmetic operations per
// iteration, either as ONE dependent chain (each op waits for the previous
// result) or as 8 independent chains (the core can run them side by side).
// Integer add, multiply and divide (uint64_t) and the double-precision ones.
//
// The dependent case is bound by the op's latency, the independent one by its
// throughput, so on hardware with a PMU expect IPC (instructions / cycles) to
// rise from the dependent to the independent variant, and cycles per
// iteration of roughly 8 x latency vs 8 / throughput:
//   add     dependent ~8 cycles (IPC ~1)   independent ~2-3 (IPC 3-4)
//   imul    ~24 (latency 3)                ~8 (one per cycle)
//   div     ~8 x 10-40 (data dependent)    several times fewer
//   addsd   ~8 x 3-4                       ~4 (two ports)
//   mulsd   ~8 x 4                         ~4
//   divsd   ~8 x 13-15                     ~8 x 4-5 (partly pipelined)
// For add and multiply, instructions per iteration are the same in both
// variants (8 ops plus the loop's own two), so IPC alone tells them apart.
// Integer div works through rax/rdx, so the independent variant adds
// register moves (nearly free: move elimination): compare cycles there.
//
// Each op's result goes through an empty asm that claims to change it: the
// compiler cannot fold the 8 adds into one `add 8*x` or reassociate the chain,
// and it emits no instruction for the barrier. The operand is 1 (or 1.0), which
// the compiler cannot see, so values stay bounded and never go subnormal.

#include <pmubench/pmubench.h>

#include <cstddef>
#include <cstdint>

namespace pmubench::benches {
namespace {

constexpr size_t kOpsPerIteration = 8;
constexpr char kIlpCounters[] = "cycles,instructions";

// Makes `value` opaque to the optimizer while keeping it in a register.
inline void KeepInRegister(uint64_t& value) { asm("" : "+r"(value)); }
inline void KeepInRegister(double& value) {
#if defined(__x86_64__)
  asm("" : "+x"(value));  // An SSE register: doubles live there.
#elif defined(__aarch64__)
  asm("" : "+w"(value));  // A SIMD/FP register.
#else
  asm("" : "+m"(value));
#endif
}

struct Add {
  template <typename T>
  T operator()(T a, T b) const {
    return a + b;
  }
};
struct Multiply {
  template <typename T>
  T operator()(T a, T b) const {
    return a * b;
  }
};
struct Divide {
  template <typename T>
  T operator()(T a, T b) const {
    return a / b;
  }
};

// One op of a chain: the barrier after it keeps the compiler from merging it
// with the next op of the same chain.
template <typename T, typename Op>
inline void Step(const Op& op, T& accumulator, T operand) {
  accumulator = op(accumulator, operand);
  KeepInRegister(accumulator);
}

// One chain: each of the kOpsPerIteration ops takes the previous result.
template <typename T, typename Op>
void RunDependentChain(pmubench::State& state, T start) {
  static_assert(kOpsPerIteration == 8, "eight ops written out below");
  T operand = 1;
  KeepInRegister(operand);  // Unknown to the compiler from here on.
  const Op op;
  T a = start;
  for (auto _ : state) {
    Step(op, a, operand);
    Step(op, a, operand);
    Step(op, a, operand);
    Step(op, a, operand);
    Step(op, a, operand);
    Step(op, a, operand);
    Step(op, a, operand);
    Step(op, a, operand);
  }
  benchmark::DoNotOptimize(a);
  state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
}

// kOpsPerIteration chains, one op each per iteration. Eight named scalars,
// not an array: g++ kept an array of accumulators on the stack, adding a load
// and a store to every op (seen with objdump).
template <typename T, typename Op>
void RunIndependentChains(pmubench::State& state, T start) {
  static_assert(kOpsPerIteration == 8, "one named accumulator per op");
  T operand = 1;
  KeepInRegister(operand);
  const Op op;
  T a0 = start, a1 = start, a2 = start, a3 = start;
  T a4 = start, a5 = start, a6 = start, a7 = start;
  for (auto _ : state) {
    Step(op, a0, operand);
    Step(op, a1, operand);
    Step(op, a2, operand);
    Step(op, a3, operand);
    Step(op, a4, operand);
    Step(op, a5, operand);
    Step(op, a6, operand);
    Step(op, a7, operand);
  }
  T total = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  benchmark::DoNotOptimize(total);
  state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
}

// Large enough that integer division produces a full-width quotient.
constexpr uint64_t kIntegerStart = 0x0123456789abcdefULL;

void BM_IntAddDependent(pmubench::State& state) {
  RunDependentChain<uint64_t, Add>(state, kIntegerStart);
}
void BM_IntAddIndependent(pmubench::State& state) {
  RunIndependentChains<uint64_t, Add>(state, kIntegerStart);
}
void BM_IntMulDependent(pmubench::State& state) {
  RunDependentChain<uint64_t, Multiply>(state, kIntegerStart);
}
void BM_IntMulIndependent(pmubench::State& state) {
  RunIndependentChains<uint64_t, Multiply>(state, kIntegerStart);
}
void BM_IntDivDependent(pmubench::State& state) {
  RunDependentChain<uint64_t, Divide>(state, kIntegerStart);
}
void BM_IntDivIndependent(pmubench::State& state) {
  RunIndependentChains<uint64_t, Divide>(state, kIntegerStart);
}
void BM_DoubleAddDependent(pmubench::State& state) {
  RunDependentChain<double, Add>(state, 1.5);
}
void BM_DoubleAddIndependent(pmubench::State& state) {
  RunIndependentChains<double, Add>(state, 1.5);
}
void BM_DoubleMulDependent(pmubench::State& state) {
  RunDependentChain<double, Multiply>(state, 1.5);
}
void BM_DoubleMulIndependent(pmubench::State& state) {
  RunIndependentChains<double, Multiply>(state, 1.5);
}
void BM_DoubleDivDependent(pmubench::State& state) {
  RunDependentChain<double, Divide>(state, 1.5);
}
void BM_DoubleDivIndependent(pmubench::State& state) {
  RunIndependentChains<double, Divide>(state, 1.5);
}

PMU_BENCHMARK_WITH_COUNTERS(BM_IntAddDependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_IntAddIndependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_IntMulDependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_IntMulIndependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_IntDivDependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_IntDivIndependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_DoubleAddDependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_DoubleAddIndependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_DoubleMulDependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_DoubleMulIndependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_DoubleDivDependent, kIlpCounters);
PMU_BENCHMARK_WITH_COUNTERS(BM_DoubleDivIndependent, kIlpCounters);

}  // namespace
}  // namespace pmubench::benches
