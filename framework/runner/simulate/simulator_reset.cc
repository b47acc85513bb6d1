#include "framework/runner/simulate/simulator_reset.h"

#include <valgrind/callgrind.h>

#include <array>

namespace pmubench::internal {
namespace {

// Conditional part. Each pass runs 128 branches laid out so that their
// addresses fall on all 128 values of the 7 address bits the predictor
// uses (a unit of 9 bytes on x86-64, 3 instructions on arm64: a stride
// prime to 128), branch j taken when bit j of the pass's two words is set.
// The bits follow a 7-bit maximal-length sequence, s[n] = s[n-7] ^ s[n-6]
// (x^7 + x^6 + 1): every 7 outcomes in a row but all-not-taken occur once
// in each 127, and the next outcome is a function of them. As 128 = 1
// modulo 127, each 127 passes put every history on every address once;
// with 3 x 127 passes, and one more for the first 7 branches (their
// history is from before), every counter reached by a history other than
// all-not-taken sees the same outcome 3 times, which saturates it at a
// value that depends on its index alone, whatever it held before. Four
// passes of all-not-taken, then four of all-taken, set the rest the same
// way (the first 7 branches of each pass see the one before). No
// other conditional branch runs in between (the loop goes round by an
// indirect jump), so the history is the sequence's own.
constexpr int kSequencePasses = 3 * 127 + 1;
constexpr int kConstantPasses = 4;
constexpr int kWords = 2 * (kSequencePasses + 2 * kConstantPasses);

std::array<unsigned long long, kWords> MakeBits() {
  std::array<unsigned long long, kWords> words{};
  unsigned window = 1;  // the last 7 outcomes, newest in bit 0
  for (int i = 0; i < 128 * kSequencePasses; ++i) {
    const unsigned bit = ((window >> 6) ^ (window >> 5)) & 1;
    window = ((window << 1) | bit) & 0x7f;
    words[i / 64] |= static_cast<unsigned long long>(bit) << (i % 64);
  }
  for (int p = 0; p < kConstantPasses; ++p) {
    words[2 * (kSequencePasses + kConstantPasses + p)] = ~0ULL;
    words[2 * (kSequencePasses + kConstantPasses + p) + 1] = ~0ULL;
  }
  return words;
}

const std::array<unsigned long long, kWords>& Bits() {
  static const std::array<unsigned long long, kWords> bits = MakeBits();
  return bits;
}

// 64 units, unit j a branch taken when bit j of a register is set (`test`
// is the instruction that branches on it, its target to come), to 2 bytes
// or 2 instructions further, so that the target is not the next
// instruction (callgrind's main.c counts a conditional jump to the next
// instruction as one VEX inverted, and would flip its outcome).
#define PMUBENCH_BRANCH_ON_EACH_BIT(test)               \
  ".set pmubench_reset_bit, 0\n\t"                      \
  ".rept 64\n\t" test                                   \
  " 1f\n\t"                                             \
  "nop\n\t"                                             \
  "nop\n"                                               \
  "1:\n\t"                                              \
  ".set pmubench_reset_bit, pmubench_reset_bit + 1\n\t" \
  ".endr\n\t"

#if defined(__x86_64__)
__attribute__((noinline)) void RunConditionalBranches(
    const unsigned long long* p, const unsigned long long* end) {
  asm volatile(
      "leaq 10f(%%rip), %%r8\n\t"
      "leaq 20f(%%rip), %%r9\n"
      "10:\n\t"
      "movq (%[p]), %%rax\n\t"
      "movq 8(%[p]), %%rdx\n\t"
      "addq $16, %[p]\n\t"
      PMUBENCH_BRANCH_ON_EACH_BIT("btq $pmubench_reset_bit, %%rax\n\tjc")
      PMUBENCH_BRANCH_ON_EACH_BIT("btq $pmubench_reset_bit, %%rdx\n\tjc")
      "cmpq %[end], %[p]\n\t"
      "movq %%r8, %%r10\n\t"
      "cmovaeq %%r9, %%r10\n\t"
      "jmpq *%%r10\n"
      "20:"
      : [p] "+r"(p)
      : [end] "r"(end)
      : "rax", "rdx", "r8", "r9", "r10", "cc", "memory");
}
#elif defined(__aarch64__)
__attribute__((noinline)) void RunConditionalBranches(
    const unsigned long long* p, const unsigned long long* end) {
  asm volatile(
      "adr x13, 10f\n\t"
      "adr x14, 20f\n"
      "10:\n\t"
      "ldp x9, x10, [%[p]], #16\n\t"
      PMUBENCH_BRANCH_ON_EACH_BIT("tbnz x9, #pmubench_reset_bit,")
      PMUBENCH_BRANCH_ON_EACH_BIT("tbnz x10, #pmubench_reset_bit,")
      "cmp %[p], %[end]\n\t"
      "csel x15, x14, x13, hs\n\t"
      "br x15\n"
      "20:"
      : [p] "+r"(p)
      : [end] "r"(end)
      : "x9", "x10", "x13", "x14", "x15", "cc", "memory");
}
#else
void RunConditionalBranches(const unsigned long long*,
                            const unsigned long long*) {}
#endif

// Indirect part: 512 indirect jumps, each to the next, at addresses that
// fall on all 512 values of the 9 bits the target table uses (a unit of 7
// bytes on x86-64, 3 instructions on arm64), so every entry ends holding a
// fixed target.
__attribute__((noinline)) void RunIndirectBranches() {
#if defined(__x86_64__)
  asm volatile(
      "leaq 30f(%%rip), %%rcx\n"
      "30:\n\t"
      ".rept 512\n\t"
      "addq $7, %%rcx\n\t"
      "nop\n\t"
      "jmpq *%%rcx\n\t"
      ".endr"
      :
      :
      : "rcx", "cc", "memory");
#elif defined(__aarch64__)
  asm volatile(
      "adr x12, 30f\n"
      "30:\n\t"
      ".rept 512\n\t"
      "add x12, x12, #12\n\t"
      "nop\n\t"
      "br x12\n\t"
      ".endr"
      :
      :
      : "x12", "cc", "memory");
#endif
}

}  // namespace

const unsigned long long* PredictorResetBits(int* words) {
  *words = kWords;
  return Bits().data();
}

void ResetSimulatedCachesAndPredictors() {
  // Off and on again: callgrind empties its caches (and translates the code
  // run afterwards anew).
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_START_INSTRUMENTATION;
  const std::array<unsigned long long, kWords>& bits = Bits();
  RunConditionalBranches(bits.data(), bits.data() + bits.size());
  RunIndirectBranches();
}

}  // namespace pmubench::internal
