#include "framework/runner/measure/fresh_heap.h"

#include <dirent.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/strings/numbers.h"
#include "framework/runner/cli/simulation_options.h"

namespace pmubench::internal {
namespace {

// The stack of each batch's thread: the usual RLIMIT_STACK default, fixed
// so that the caller's limit does not move the stack.
constexpr size_t kStackBytes = 8 << 20;

struct Handoff {
  const std::function<void()>* work;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
};

void* RunThenWait(void* arg) {
  auto* handoff = static_cast<Handoff*>(arg);
  (*handoff->work)();
  {
    std::lock_guard<std::mutex> lock(handoff->mu);
    handoff->done = true;
    handoff->cv.notify_one();
  }
  // Every signal blocked (they go to the threads that run), so pause()
  // never returns: the thread, and with it its arena, stays until exit.
  // (Not a condition variable: exit() would wait in its destructor.)
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  for (;;) pause();
}

// Threads kept free under valgrind's limit for the cases' own threads
// (->Threads(N)) and Google Benchmark's.
constexpr int kReservedThreads = 64;

// Valgrind's --max-threads for this process: what pmubench's re-execution
// passed (simulation_options.h), else valgrind's default.
int ValgrindThreadLimit() {
  const char* text = std::getenv(kCallgrindMaxThreadsEnv);
  int limit = 0;
  if (text != nullptr && absl::SimpleAtoi(text, &limit) && limit > 0) {
    return limit;
  }
  return kValgrindDefaultMaxThreads;
}

// The threads alive in this process (valgrind runs each on a thread of the
// kernel's, so /proc sees them all).
int LiveThreads() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  int threads = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++threads;
  }
  closedir(dir);
  return threads;
}

// True while one more parked thread stays clear of valgrind's limit, past
// which valgrind ends the whole run. Says once when it no longer does.
bool RoomForAnotherThread() {
  const int limit = ValgrindThreadLimit();
  const int live = LiveThreads();
  if (live + 1 + kReservedThreads <= limit) return true;
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    std::fprintf(stderr,
                 "pmubench: %d threads alive, near valgrind's --max-threads=%d:"
                 " this batch and later ones run on the main thread, where "
                 "what earlier cases left on the heap can move their counts; "
                 "give valgrind a larger --max-threads (--pmubench_simulate "
                 "passes %d)\n",
                 live, limit, kCallgrindMaxThreads);
  }
  return false;
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

void RunOnFreshHeap(const std::function<void()>& work) {
  if (!RoomForAnotherThread()) {
    work();
    return;
  }
  Handoff handoff;
  handoff.work = &work;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const int error = pthread_create(&thread, &attr, RunThenWait, &handoff);
  pthread_attr_destroy(&attr);
  if (error != 0) {
    work();
    return;
  }
  std::unique_lock<std::mutex> lock(handoff.mu);
  handoff.cv.wait(lock, [&] { return handoff.done; });
}

}  // namespace pmubench::internal
