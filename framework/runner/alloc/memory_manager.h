// Google Benchmark's benchmark::RegisterMemoryManager, taken over by
// pmubench (memory_manager.cc): a converted file that registers a
// MemoryManager builds and runs, its manager unused, and pmubench's own
// allocation counts (alloc_fields.h) in its place.
//
//   if (MemoryManagerRegistered()) std::cerr << kMemoryManagerNotice;
#ifndef PMUBENCH_FRAMEWORK_RUNNER_ALLOC_MEMORY_MANAGER_H_
#define PMUBENCH_FRAMEWORK_RUNNER_ALLOC_MEMORY_MANAGER_H_

namespace pmubench::internal {

// True once the program called benchmark::RegisterMemoryManager with a
// manager (not null).
bool MemoryManagerRegistered();

// The line the runner prints once, in the process that runs the cases.
inline constexpr char kMemoryManagerNotice[] =
    "pmubench: benchmark::RegisterMemoryManager: the registered manager is "
    "not used; pmubench counts heap allocations itself, in the same batches "
    "as its counters (allocs_per_iter, alloc_bytes_per_iter, frees_per_iter, "
    "max_bytes_used)";

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_ALLOC_MEMORY_MANAGER_H_
