#include "framework/runner/measure/fresh_heap.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "framework/runner/simulate/simulator_reset.h"

#if defined(__GLIBC__) && !defined(PMUBENCH_NO_FRESH_HEAP)
#define PMUBENCH_FRESH_HEAP_ON 1
#else
#define PMUBENCH_FRESH_HEAP_ON 0
#endif

namespace pmubench::internal {

#if PMUBENCH_FRESH_HEAP_ON
namespace {

// The stack of each batch's thread: the usual RLIMIT_STACK default, fixed
// so that the caller's limit does not move the stack.
constexpr size_t kStackBytes = 8 << 20;

// How long a batch's thread waits for the caller to block before it runs
// the batch anyway (each poll yields the CPU once).
constexpr int kMaxPolls = 100000;

// What glibc reserves to make a thread's arena: one PROT_NONE mapping of
// twice HEAP_MAX_SIZE (64 MiB on 64-bit), trimmed to an aligned 64 MiB that
// stays mapped (malloc/arena.c: alloc_new_heap).
constexpr size_t kArenaReserveBytes = size_t{128} << 20;

// True when a mapping as glibc makes for a new arena can be made now (it is
// unmapped again at once, so the arena lands where it would have). Under
// valgrind 3.19 on x86-64 the client's address space ends near 128 GiB, so
// after about 2,000 batches no arena can be made, and malloc in a new thread
// silently falls back to the arenas that ran before.
bool RoomForAnArena() {
  void* p = mmap(nullptr, kArenaReserveBytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  munmap(p, kArenaReserveBytes);
  return true;
}

// Said once per process, at the first batch that finds no room.
void SayNoRoom(long batch) {
  std::fprintf(
      stderr,
      "pmubench: batch %ld of this process found no address space for a "
      "fresh heap (a new malloc arena reserves 128 MiB; under valgrind a "
      "process has about 128 GiB, about 2,000 batches): it and the batches "
      "after it run on the calling thread's heap, and counts of code that "
      "allocates may follow what ran before. Each case (or family kept "
      "whole) runs in a process of its own: give it fewer repetitions, or "
      "its family fewer instances "
      "(docs/ci_without_pmu.md#what-the-backend-relies-on-and-where-it-says-"
      "so)\n",
      batch);
}

struct Handoff {
  const std::function<void()>* work;
  bool reset_simulator;
  pid_t caller;  // the thread that waits in pthread_join
};

void RunBatch(const std::function<void()>& work, bool reset_simulator) {
  if (reset_simulator) ResetSimulatedCachesAndPredictors();
  work();
}

// True when thread `tid` of this process sits in futex(2): the first field
// of /proc/self/task/TID/syscall is the number of the system call it is
// blocked in (proc(5)). Under valgrind a thread waiting for valgrind's own
// lock reads a pipe instead (--fair-sched=no, the default), so a futex
// means the caller's pthread_join. True when this cannot be read: the
// batch then runs at once, as it did without the check.
bool BlockedInFutex(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/syscall",
                static_cast<int>(tid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char line[32];
  const ssize_t n = read(fd, line, sizeof(line) - 1);
  close(fd);
  if (n <= 0) return true;
  line[n] = '\0';
  char* end = nullptr;
  const long number = std::strtol(line, &end, 10);
  return end != line && number == SYS_futex;
}

// Valgrind runs one thread at a time and switches at system calls and at
// the end of a timeslice. Were the caller still running when the batch
// starts, its last steps into pthread_join would run inside a measured
// segment, at a point the kernel's scheduling chooses, and train
// callgrind's branch predictor and caches, which are one for the whole
// process. So the batch waits until the caller has blocked; and the thread
// exits the moment its batch is done, so no step of it runs after either.
void* RunThenExit(void* arg) {
  const auto* handoff = static_cast<const Handoff*>(arg);
  for (int poll = 0; poll < kMaxPolls && !BlockedInFutex(handoff->caller);
       ++poll) {
    sched_yield();
  }
  RunBatch(*handoff->work, handoff->reset_simulator);
  // The kernel clears the thread's id and wakes pthread_join
  // (CLONE_CHILD_CLEARTID, clone(2)). glibc's own thread exit does not run:
  // it would hand this thread's arena, with its chunks, to the next new
  // thread (malloc/arena.c: arena_thread_freeres).
  syscall(SYS_exit, 0);
  __builtin_unreachable();
}

}  // namespace

void PrepareFreshHeaps() {
  // The defaults of malloc.c (DEFAULT_MMAP_THRESHOLD_MIN, DEFAULT_TOP_PAD,
  // twice the threshold), set so they stay: mallopt turns the dynamic
  // threshold off.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 256 * 1024);
  mallopt(M_TOP_PAD, 128 * 1024);
  mallopt(M_ARENA_MAX, 1 << 20);
}

void RunOnFreshHeap(const std::function<void()>& work, bool reset_simulator) {
  static std::atomic<long> batches{0};
  static std::atomic<bool> said{false};
  const long batch = ++batches;
  if (!RoomForAnArena()) {
    if (!said.exchange(true)) SayNoRoom(batch);
    RunBatch(work, reset_simulator);
    return;
  }
  Handoff handoff{&work, reset_simulator,
                  static_cast<pid_t>(syscall(SYS_gettid))};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_t thread;
  const int error = pthread_create(&thread, &attr, RunThenExit, &handoff);
  pthread_attr_destroy(&attr);
  if (error != 0) {
    RunBatch(work, reset_simulator);
    return;
  }
  pthread_join(thread, nullptr);
}

#else  // the fresh heap compiled out (fresh_heap.h)

void PrepareFreshHeaps() {}

void RunOnFreshHeap(const std::function<void()>& work, bool reset_simulator) {
  if (reset_simulator) ResetSimulatedCachesAndPredictors();
  work();
}

#endif

}  // namespace pmubench::internal
