// alloc_cost: what counting heap allocations adds per allocation. Each case
// does one allocation and one free per iteration, three ways in one run:
//
//   BM_AllocCost_Glibc       glibc's own malloc and free (__libc_malloc,
//                            __libc_free), past pmubench's interposition:
//                            what a program without pmubench pays;
//   BM_AllocCost_NotCounted  malloc and free through pmubench's interposed
//                            ones, counting paused (outside a measured
//                            batch: the thread-local flag test);
//   BM_AllocCost_Counted     the same, counted (inside a measured batch);
//
// and operator new and delete counted and not. Each iteration switches
// counting the same way (a load and a thread-local store), so the cases
// differ only in the counting. Compare CPU time per iteration within one run (a
// ratio, not an absolute), and instructions exactly under callgrind:
//
//   build/cmake/benches/alloc_cost --counters=none --benchmark_repetitions=5
//   build/cmake/benches/alloc_cost --pmubench_simulate
//
// docs/allocations.md has the figures.
#include <pmubench/pmubench.h>

#include <cstddef>
#include <cstdlib>

#include "framework/runner/alloc/alloc_tally.h"

extern "C" void* __libc_malloc(size_t size);
extern "C" void __libc_free(void* p);

namespace {

using pmubench::internal::AllocResume;

// Counting off for the iteration: the same instructions as AllocResume (a
// load of a global and a thread-local store), so that a counted and a
// not-counted case differ only in the counting.
constinit volatile bool counting_off = false;
void AllocPause() { pmubench::internal::alloc_tally.on = counting_off; }

void BM_AllocCost_Glibc(pmubench::State& state) {
  for (auto _ : state) {
    AllocPause();
    void* p = __libc_malloc(16);
    benchmark::DoNotOptimize(p);
    __libc_free(p);
  }
}
PMU_BENCHMARK(BM_AllocCost_Glibc);

void BM_AllocCost_NotCounted(pmubench::State& state) {
  for (auto _ : state) {
    AllocPause();
    void* p = std::malloc(16);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
PMU_BENCHMARK(BM_AllocCost_NotCounted);

void BM_AllocCost_Counted(pmubench::State& state) {
  for (auto _ : state) {
    AllocResume();
    void* p = std::malloc(16);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
PMU_BENCHMARK(BM_AllocCost_Counted);

void BM_AllocCost_NewNotCounted(pmubench::State& state) {
  for (auto _ : state) {
    AllocPause();
    int* p = new int(1);
    benchmark::DoNotOptimize(p);
    delete p;
  }
}
PMU_BENCHMARK(BM_AllocCost_NewNotCounted);

void BM_AllocCost_NewCounted(pmubench::State& state) {
  for (auto _ : state) {
    AllocResume();
    int* p = new int(1);
    benchmark::DoNotOptimize(p);
    delete p;
  }
}
PMU_BENCHMARK(BM_AllocCost_NewCounted);

}  // namespace
