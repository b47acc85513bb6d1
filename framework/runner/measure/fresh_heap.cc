#include "framework/runner/measure/fresh_heap.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>

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
