// One Valgrind client request, inline, that disturbs no register: for the
// segment boundaries inside a case's loop under callgrind (state.h,
// simulated_meter.h).
//
// <valgrind/valgrind.h>'s VALGRIND_DO_CLIENT_REQUEST_EXPR passes the request
// in fixed registers (x86-64: the argument block's address in %rax, the
// result in %rdx; arm64: x4 and x3). Inside a case's loop that makes the
// register allocator move loop-carried values between registers on every
// iteration (seen with g++ 12: two extra movs per iteration in a loop of
// dependent adds), which would change what the native build measures. This
// version takes the block's address in any register and saves and restores
// the fixed ones itself, so the compiler sees an asm that only reads one
// register and memory. The instruction sequence Valgrind recognises (the
// "special instruction preamble" and the request marker) is the one
// valgrind.h documents for each platform; callgrind.cc checks the request
// number against <valgrind/callgrind.h>.
//
// Natively the sequence is a handful of rotates that leave every register
// as it was. Only x86-64 and arm64 Linux are supported; elsewhere
// kCallgrindRequestsSupported is false and the request does nothing.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_CALLGRIND_REQUEST_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_CALLGRIND_REQUEST_H_

#include <cstdint>

namespace pmubench::internal {

// VG_USERREQ__DUMP_STATS_AT of <valgrind/callgrind.h>: VG_USERREQ_TOOL_BASE
// ('C', 'T') + 3.
inline constexpr uint64_t kCallgrindDumpStatsAt =
    (static_cast<uint64_t>('C') << 24 | static_cast<uint64_t>('T') << 16) + 3;

#if defined(__x86_64__) || defined(__aarch64__)
inline constexpr bool kCallgrindRequestsSupported = true;
#else
inline constexpr bool kCallgrindRequestsSupported = false;
#endif

// callgrind dumps the calling thread's costs (every thread's without
// --separate-threads=yes) to a file whose "desc: Trigger:" line names
// `label`, and zeroes them.
__attribute__((always_inline)) inline void CallgrindDumpStatsAt(
    const char* label) {
  volatile uint64_t args[6] = {
      kCallgrindDumpStatsAt, reinterpret_cast<uint64_t>(label), 0, 0, 0, 0};
#if defined(__x86_64__)
  // Below the red zone, %rax and %rdx kept; %rdi rotated by 128 bits in all.
  asm volatile(
      "leaq -128(%%rsp), %%rsp\n\t"
      "pushq %%rax\n\t"
      "pushq %%rdx\n\t"
      "movq %0, %%rax\n\t"
      "xorl %%edx, %%edx\n\t"
      "rolq $3, %%rdi ; rolq $13, %%rdi\n\t"
      "rolq $61, %%rdi ; rolq $51, %%rdi\n\t"
      "xchgq %%rbx, %%rbx\n\t"
      "popq %%rdx\n\t"
      "popq %%rax\n\t"
      "leaq 128(%%rsp), %%rsp"
      :
      : "r"(&args[0])
      : "cc", "memory");
#elif defined(__aarch64__)
  // x3 and x4 kept; x12 rotated by 128 bits in all.
  asm volatile(
      "stp x3, x4, [sp, #-16]!\n\t"
      "mov x4, %0\n\t"
      "mov x3, #0\n\t"
      "ror x12, x12, #3 ; ror x12, x12, #13\n\t"
      "ror x12, x12, #51 ; ror x12, x12, #61\n\t"
      "orr x10, x10, x10\n\t"
      "ldp x3, x4, [sp], #16"
      :
      : "r"(&args[0])
      : "cc", "memory");
#else
  (void)args;
#endif
}

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_CALLGRIND_REQUEST_H_
