// Whether this process can count heap allocations, and turning counting on.
//
// Counting needs pmubench's interposed allocator (interpose.cc) to be the
// one the program calls. It is not under AddressSanitizer (ASan's own
// malloc and operator new take the place of both), nor where a program
// defines malloc ahead of pmubench's (a static allocator linked into the
// executable). ProbeAllocCounting() finds out by experiment: with the
// tally on, one malloc and one free through the symbol the program uses.
//
//   const AllocSupport support = ProbeAllocCounting();
//   if (!support.countable) std::cerr << support.reason;   // fields absent
//   SetAllocCounting(support.countable && flag_on);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_PROBE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_PROBE_H_

#include <string>

namespace pmubench::internal {

struct AllocSupport {
  bool countable = false;
  // Why not, for the one line on stderr, when !countable.
  std::string reason;
};

AllocSupport ProbeAllocCounting();

// Once, before the first case: whether batches count allocations.
void SetAllocCounting(bool on);
bool AllocCountingOn();

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_ALLOC_ALLOC_PROBE_H_
