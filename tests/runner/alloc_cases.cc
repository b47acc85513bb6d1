// Cases whose heap work per iteration is known exactly (libstdc++ of GCC
// 12, glibc, x86-64 and arm64), for the allocation counting's end-to-end
// test (alloc_e2e_test.cc), natively and under callgrind. Each escapes its
// pointers through benchmark::DoNotOptimize, so the compiler cannot drop an
// allocation it could prove unused.
//
// It also registers a Google Benchmark MemoryManager, as a converted file
// would: pmubench says once that its own counts take the manager's place,
// and the manager is never started.
#include <malloc.h>
#include <pmubench/pmubench.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace {

class NeverStarted : public benchmark::MemoryManager {
 public:
  void Start() override {
    std::fputs("alloc_cases: the MemoryManager was started\n", stderr);
  }
  void Stop(Result* result) override { result->num_allocs = 12345; }
};
NeverStarted never_started;
const bool manager_registered =
    (benchmark::RegisterMemoryManager(&never_started), true);

template <typename T>
void Escape(T* p) {
  benchmark::DoNotOptimize(p);
}

// 1 allocation of 4 bytes, 1 free.
void BM_AllocMakeUnique(pmubench::State& state) {
  for (auto _ : state) {
    auto p = std::make_unique<int>(1);
    Escape(p.get());
  }
}
PMU_BENCHMARK(BM_AllocMakeUnique);

// Growth by doubling: 1, 2, 4, ..., 128 ints, 8 allocations of 1,020 bytes.
void BM_AllocVector100(pmubench::State& state) {
  for (auto _ : state) {
    std::vector<int> v;
    for (int i = 0; i < 100; ++i) v.push_back(i);
    Escape(v.data());
  }
}
PMU_BENCHMARK(BM_AllocVector100);

// 15 characters fit the small-string buffer; 16 take 17 bytes of heap.
void BM_AllocString(pmubench::State& state) {
  for (auto _ : state) {
    std::string s(static_cast<size_t>(state.range(0)), 'a');
    Escape(s.data());
  }
}
PMU_BENCHMARK(BM_AllocString)->Arg(15)->Arg(16);

// 10 nodes of 40 bytes.
void BM_AllocMap10(pmubench::State& state) {
  for (auto _ : state) {
    std::map<int, int> m;
    for (int i = 0; i < 10; ++i) m.emplace(i, i);
    Escape(&m);
  }
}
PMU_BENCHMARK(BM_AllocMap10);

// The control block and the long together: one allocation of 24 bytes.
void BM_AllocMakeShared(pmubench::State& state) {
  for (auto _ : state) {
    auto p = std::make_shared<long>(1);
    Escape(p.get());
  }
}
PMU_BENCHMARK(BM_AllocMakeShared);

// malloc(64); a shrink in place (no allocation, no free); a growth to 1 MiB
// that moves (one allocation, one free); the last free.
void BM_AllocRealloc(pmubench::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(64);
    Escape(p);
    p = std::realloc(p, 32);
    Escape(p);
    p = std::realloc(p, 1 << 20);
    Escape(p);
    std::free(p);
  }
}
PMU_BENCHMARK(BM_AllocRealloc);

// A block of 2,024 bytes (a chunk of 2,032) shrunk in place to 2,000 bytes
// (whose exact chunk is 2,016): glibc keeps the whole chunk, as what it
// would give back is smaller than a chunk (malloc.c: _int_realloc). Then
// one of 24 bytes while it lives: 2 allocations of 2,048 bytes, 2 frees,
// and a peak of the requests' fits, 2,008 + 24 bytes, not the chunk's.
void BM_AllocShrunkInPlace(pmubench::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(2024);
    Escape(p);
    p = std::realloc(p, 2000);
    Escape(p);
    void* q = std::malloc(24);
    Escape(q);
    std::free(q);
    std::free(p);
  }
}
PMU_BENCHMARK(BM_AllocShrunkInPlace);

// 100 such blocks live at once, freed in another order than made (every
// 37th): each is remembered for its free, and the peak is 99 fits of
// 2,000 bytes and the last block before its shrink.
void BM_AllocManyShrunk(pmubench::State& state) {
  constexpr int kBlocks = 100;
  void* blocks[kBlocks];
  for (auto _ : state) {
    for (void*& p : blocks) {
      p = std::realloc(std::malloc(2024), 2000);
      Escape(p);
    }
    for (int i = 0; i < kBlocks; ++i) std::free(blocks[i * 37 % kBlocks]);
  }
}
PMU_BENCHMARK(BM_AllocManyShrunk);

struct alignas(64) Line {
  char bytes[100];
};

// Aligned forms: new of a 64-byte-aligned type (128 bytes), aligned_alloc
// of 256 and posix_memalign of 32: 3 allocations of 416 bytes, 3 frees.
void BM_AllocAligned(pmubench::State& state) {
  for (auto _ : state) {
    auto line = std::make_unique<Line>();
    Escape(line.get());
    void* a = aligned_alloc(64, 256);
    Escape(a);
    std::free(a);
    void* b = nullptr;
    if (posix_memalign(&b, 64, 32) != 0) state.SkipWithError("posix_memalign");
    Escape(b);
    std::free(b);
  }
}
PMU_BENCHMARK(BM_AllocAligned);

// nothrow new that succeeds (one of 4 bytes), and calloc of 10 ints.
void BM_AllocNothrowCalloc(pmubench::State& state) {
  for (auto _ : state) {
    int* p = new (std::nothrow) int(1);
    Escape(p);
    delete p;
    void* c = std::calloc(10, sizeof(int));
    Escape(c);
    std::free(c);
  }
}
PMU_BENCHMARK(BM_AllocNothrowCalloc);

// Requests no allocator can meet: nothing is allocated, nothing freed.
void BM_AllocFailure(pmubench::State& state) {
  volatile size_t huge = SIZE_MAX / 2;
  for (auto _ : state) {
    void* m = std::malloc(huge);
    Escape(m);
    void* n = operator new(huge, std::nothrow);
    Escape(n);
  }
}
PMU_BENCHMARK(BM_AllocFailure);

// new that throws std::bad_alloc: the failed request allocates nothing; the
// exception object is one allocation (__cxa_allocate_exception) and one
// free when it is caught.
void BM_AllocNewThrows(pmubench::State& state) {
  volatile size_t huge = SIZE_MAX / 2;
  for (auto _ : state) {
    try {
      Escape(operator new(huge));
    } catch (const std::bad_alloc&) {
    }
  }
}
PMU_BENCHMARK(BM_AllocNewThrows);

// Set-up and tear-down allocate; the loop does not.
class AllocFixture : public pmubench::Fixture {
 public:
  void SetUp(pmubench::State&) override { v_.assign(1000, 1); }
  void TearDown(pmubench::State&) override { v_ = std::vector<int>(); }

 protected:
  std::vector<int> v_;
};
PMU_BENCHMARK_F(AllocFixture, NoLoopAllocation)(pmubench::State& state) {
  for (auto _ : state) {
    v_[0] += 1;
    Escape(v_.data());
  }
}

// Before and after the loop, and while paused: not counted. One per
// iteration counted.
void BM_AllocOutsideTheLoop(pmubench::State& state) {
  std::vector<int> before(1000, 1);
  Escape(before.data());
  for (auto _ : state) {
    state.PauseTiming();
    auto paused = std::make_unique<long>(2);
    Escape(paused.get());
    paused.reset();
    state.ResumeTiming();
    auto p = std::make_unique<int>(1);
    Escape(p.get());
  }
  std::vector<int> after(1000, 1);
  Escape(after.data());
}
PMU_BENCHMARK(BM_AllocOutsideTheLoop);

// Every thread of the case counts: per iteration as with one thread.
void BM_AllocThreads(pmubench::State& state) {
  for (auto _ : state) {
    auto p = std::make_unique<int>(1);
    Escape(p.get());
  }
}
PMU_BENCHMARK(BM_AllocThreads)->Threads(2);

}  // namespace
