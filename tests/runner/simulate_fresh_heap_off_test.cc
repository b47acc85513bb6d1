// The fresh heap compiled out (PMUBENCH_NO_FRESH_HEAP, as a build on a C
// library other than glibc has it): fresh_heap.cc still compiles, and each
// batch runs on the calling thread, before which the simulator reset runs.
// This binary builds fresh_heap.cc itself with the macro set, so the rest of
// the suite keeps the fresh heap.
#include <sys/syscall.h>
#include <unistd.h>

#include "framework/runner/measure/fresh_heap.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

static_assert(!kFreshHeapBuilt, "built with PMUBENCH_NO_FRESH_HEAP");

TEST(FreshHeapOffTest, BatchRunsOnTheCallingThread) {
  PrepareFreshHeaps();
  const long caller = syscall(SYS_gettid);
  long ran_on = 0;
  int runs = 0;
  for (bool reset : {false, true}) {
    RunOnFreshHeap(
        [&] {
          ran_on = syscall(SYS_gettid);
          ++runs;
        },
        reset);
    EXPECT_EQ(ran_on, caller) << "reset " << reset;
  }
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace pmubench::internal
