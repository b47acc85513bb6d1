// benchmark::RegisterMemoryManager, pmubench's. This definition comes ahead
// of libbenchmark's in the symbol search order (the program links pmubench
// before Google Benchmark), so a registered manager never reaches Google
// Benchmark: its extra pass of up to 16 iterations does not run, and its
// allocs_per_iter and max_bytes_used, which pmubench writes itself, are not
// written a second time in each JSON row.
#include "framework/runner/alloc/memory_manager.h"

#include <benchmark/benchmark.h>

#include <atomic>

namespace pmubench::internal {
namespace {

std::atomic<bool> registered{false};

}  // namespace

bool MemoryManagerRegistered() {
  return registered.load(std::memory_order_relaxed);
}

}  // namespace pmubench::internal

namespace benchmark {

void RegisterMemoryManager(MemoryManager* memory_manager) {
  if (memory_manager != nullptr) {
    pmubench::internal::registered.store(true, std::memory_order_relaxed);
  }
}

}  // namespace benchmark
