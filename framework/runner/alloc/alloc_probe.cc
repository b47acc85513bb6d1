#include "framework/runner/alloc/alloc_probe.h"

#include <cstdlib>

#include "framework/runner/alloc/alloc_tally.h"

namespace pmubench::internal {

AllocSupport ProbeAllocCounting() {
#if defined(__SANITIZE_ADDRESS__)
  return {false,
          "built with AddressSanitizer, whose own malloc and operator new "
          "replace pmubench's counting ones; build without "
          "-fsanitize=address to count allocations"};
#else
  // Through a volatile pointer, so the compiler cannot drop the pair.
  void* (*volatile allocate)(size_t) = &std::malloc;
  const bool was = alloc_counting;
  alloc_counting = true;
  AllocBeginBatch();
  void* p = allocate(8);
  std::free(p);
  AllocPause();
  const AllocCounts counts = AllocTotals();
  alloc_counting = was;
  alloc_tally = AllocTally{};
  if (p != nullptr && counts.allocs == 1 && counts.frees == 1) {
    return {true, ""};
  }
  return {false,
          "this program's malloc is not pmubench's counting one (an allocator "
          "linked statically into the executable defines malloc ahead of "
          "it); link tcmalloc or jemalloc as a shared library, or use "
          "glibc's malloc, to count allocations"};
#endif
}

void SetAllocCounting(bool on) { alloc_counting = on; }
bool AllocCountingOn() { return alloc_counting; }

}  // namespace pmubench::internal
