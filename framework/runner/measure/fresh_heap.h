// Under callgrind a batch runs on a thread of its own, so that what it
// counts depends only on the case and the code, not on what ran before it
// in the process nor on the process's path, arguments and environment.
//
// Why: glibc's malloc and string functions execute a number of instructions
// that depends on the state of the heap and on where buffers sit. Measured
// on the default suite, a case's count moved with the cases before it (the
// free chunks they left in the main arena, the thread's tcache) and with
// the length of argv and the environment (they shift the main thread's
// stack and the heap chunks made at start-up). A thread that has never run
// before starts with an empty tcache (malloc.c: tcache_init), gets a new
// arena of its own (malloc/arena.c: arena_get2 makes one while no arena is
// free), a heap aligned to HEAP_MAX_SIZE (64 MiB) whatever came before,
// and a stack whose top does not depend on argv or the environment (a
// fixed size: the caller's RLIMIT_STACK does not enter either).
//
// So the thread must not end the way glibc ends a thread: that hands its
// arena to the next new thread (arena.c: arena_thread_freeres, then
// get_free_list), with its chunks. It leaves by the exit system call
// instead, and its arena stays unused until the process exits.
// PrepareFreshHeaps() fixes malloc's tuning (its dynamic mmap threshold
// otherwise follows the largest block any case freed) and lets glibc make an
// arena for every such thread.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_FRESH_HEAP_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_FRESH_HEAP_H_

#include <functional>

namespace pmubench::internal {

// The fresh heap rests on glibc's malloc (mallopt, per-thread arenas). It
// is compiled out elsewhere, and by -DPMUBENCH_NO_FRESH_HEAP (CMake option
// PMUBENCH_FRESH_HEAP=OFF, Bazel --define=pmubench_fresh_heap=off): then
// each batch runs on the calling thread, and the run says in its context
// (pmubench_fresh_heap) that counts of code that allocates may follow what
// ran before.
#if defined(__GLIBC__) && !defined(PMUBENCH_NO_FRESH_HEAP)
inline constexpr bool kFreshHeapBuilt = true;
#else
inline constexpr bool kFreshHeapBuilt = false;
#endif

// Once, before the first batch: malloc's thresholds pinned at their
// defaults (mallopt(3) M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_TOP_PAD) and
// no limit on arenas (M_ARENA_MAX).
void PrepareFreshHeaps();

// Runs `work` on a new thread, once the calling thread waits for it, and
// returns when it is done; the thread then exits at once, without glibc's
// thread exit (its arena stays with it). With `reset_simulator`, first puts
// callgrind's simulated caches and branch predictors in their fixed state
// (simulate/simulator_reset.h). Runs `work` on the calling thread if no
// thread can be made. As each thread ends with its batch, valgrind reuses
// its slot: a run never nears valgrind's --max-threads.
//
// What a batch thread runs of C++'s thread exit: none. thread_local
// objects the case made on it are constructed as usual, but their
// destructors do not run (nor pthread key destructors): a case that needs
// them to free or flush must not rely on them under callgrind.
// Each batch's arena stays mapped until the process exits (64 MiB of
// address space reserved, only the pages it used committed). Under valgrind
// that fills the process's address space after about 2,000 batches; from
// the first batch for which no arena can be made, batches run on the
// calling thread, and stderr says so once.
void RunOnFreshHeap(const std::function<void()>& work, bool reset_simulator);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_FRESH_HEAP_H_
