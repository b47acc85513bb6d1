// Cases for the allocation sites of compare's attribution, end to end
// (tests/python/test_alloc_sites.py), built as a base and as a head that
// adds one allocation per iteration at a new call site
// (PMUBENCH_ALLOC_HEAD=1):
//   BM_Sites        per iteration, MakeOne() allocates 4 bytes with
//                   operator new; Grow() pushes 3 ints into a vector (3
//                   allocations of 4, 8 and 16 bytes, in libstdc++'s code
//                   that g++ 12 -O2 inlines into Grow()); GrowStrings()
//                   pushes a short string into a vector of strings (1
//                   allocation of 32 bytes, made out of line by
//                   std::vector<std::string>::_M_realloc_insert, a
//                   standard-library frame called from GrowStrings()); the
//                   head also calls CopyOnce(), one malloc of 17 bytes.
//   BM_SitesSteady  MakeOne() alone, the same in both builds.
#include <pmubench/pmubench.h>

#include <cstdlib>
#include <string>
#include <vector>

#ifndef PMUBENCH_ALLOC_HEAD
#define PMUBENCH_ALLOC_HEAD 0
#endif

__attribute__((noinline)) void MakeOne() {
  int* p = new int(1);
  benchmark::DoNotOptimize(p);
  delete p;
}

__attribute__((noinline)) void Grow() {
  std::vector<int> v;
  for (int i = 0; i < 3; ++i) v.push_back(i);
  benchmark::DoNotOptimize(v.data());
}

const std::string kShort = "ab";  // in the small-string buffer

__attribute__((noinline)) void GrowStrings() {
  std::vector<std::string> v;
  v.push_back(kShort);
  benchmark::DoNotOptimize(v.data());
}

__attribute__((noinline)) void CopyOnce() {
  void* p = std::malloc(17);
  benchmark::DoNotOptimize(p);
  std::free(p);
}

namespace {

void BM_Sites(pmubench::State& state) {
  for (auto _ : state) {
    MakeOne();
    Grow();
    GrowStrings();
    if (PMUBENCH_ALLOC_HEAD) CopyOnce();
  }
}
PMU_BENCHMARK(BM_Sites);

void BM_SitesSteady(pmubench::State& state) {
  for (auto _ : state) MakeOne();
}
PMU_BENCHMARK(BM_SitesSteady);

}  // namespace
