// Cases whose instruction counts are known exactly, for the callgrind
// backend's end-to-end test (simulate_e2e_test.cc): blocks of nops in inline
// assembly (one instruction each on x86-64 and arm64) inside each loop form,
// a paused region, a fixture, two threads; a pointer chase and a branch
// on sorted or shuffled bytes for the simulated caches and predictor; and,
// for the determinism test, cases that leave the process's heap in another
// state (BM_SimChatty*) before allocation-heavy ones (BM_SimHeavy*) whose
// counts must not change for it.
//
// The range-for loop adds two instructions per iteration (a decrement and a
// branch: benches/accuracy.cc), so BM_SimNops reads exactly 102.
#include <pmubench/pmubench.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#define PMUBENCH_NOPS(n) asm volatile(".rept " #n "\n\tnop\n\t.endr")

namespace {

// With PMUBENCH_TEST_FILL_ADDRESS_SPACE set (registered first, so it runs
// before the cases a filter selects with it): reserves the process's
// address space in 1 GiB, then 64 MiB blocks until none is left, as
// thousands of batches' arenas would under valgrind, and keeps it.
void BM_SimFillsAddressSpace(pmubench::State& state) {
  if (std::getenv("PMUBENCH_TEST_FILL_ADDRESS_SPACE") != nullptr) {
    for (size_t block : {size_t{1} << 30, size_t{64} << 20}) {
      while (mmap(nullptr, block, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                  0) != MAP_FAILED) {
      }
    }
  }
  for (auto _ : state) PMUBENCH_NOPS(1);
}
PMU_BENCHMARK(BM_SimFillsAddressSpace);

void BM_SimNops(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(100);
}
PMU_BENCHMARK(BM_SimNops);

// The paused region's 1000 nops and the pause pair itself are not counted.
void BM_SimPaused(pmubench::State& state) {
  for (auto _ : state) {
    PMUBENCH_NOPS(100);
    state.PauseTiming();
    PMUBENCH_NOPS(1000);
    state.ResumeTiming();
  }
}
PMU_BENCHMARK(BM_SimPaused);

// KeepRunning's own loop costs what it costs; 200 nops must read exactly
// 100 more than 100 nops.
void BM_SimKeepRunning100(pmubench::State& state) {
  while (state.KeepRunning()) PMUBENCH_NOPS(100);
}
PMU_BENCHMARK(BM_SimKeepRunning100);
void BM_SimKeepRunning200(pmubench::State& state) {
  while (state.KeepRunning()) PMUBENCH_NOPS(200);
}
PMU_BENCHMARK(BM_SimKeepRunning200);

// Four iterations per call: per iteration, 100 (200) nops plus a quarter of
// the loop's own cost.
void BM_SimKeepRunningBatch100(pmubench::State& state) {
  while (state.KeepRunningBatch(4)) PMUBENCH_NOPS(400);
}
PMU_BENCHMARK(BM_SimKeepRunningBatch100);
void BM_SimKeepRunningBatch200(pmubench::State& state) {
  while (state.KeepRunningBatch(4)) PMUBENCH_NOPS(800);
}
PMU_BENCHMARK(BM_SimKeepRunningBatch200);

// SetUp and TearDown run outside the loop: not counted.
class SimFixture : public pmubench::Fixture {
 public:
  void SetUp(pmubench::State&) override {
    for (int i = 0; i < 1000; ++i) PMUBENCH_NOPS(10);
  }
  void TearDown(pmubench::State&) override {
    for (int i = 0; i < 1000; ++i) PMUBENCH_NOPS(10);
  }
};
PMU_BENCHMARK_F(SimFixture, Nops)(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(100);
}

void BM_SimThreads(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(100);
}
PMU_BENCHMARK(BM_SimThreads)->Threads(2);

// Two functions apart from the loop, for the profile: 100 and 300 nops.
__attribute__((noinline)) void Hundred() { PMUBENCH_NOPS(100); }
__attribute__((noinline)) void ThreeHundred() { PMUBENCH_NOPS(300); }
void BM_SimProfiled(pmubench::State& state) {
  for (auto _ : state) {
    Hundred();
    ThreeHundred();
  }
}
PMU_BENCHMARK(BM_SimProfiled);

// One node per 64-byte line in a random cycle over range(0) bytes.
void BM_SimChase(pmubench::State& state) {
  struct alignas(64) Node {
    Node* next;
  };
  std::vector<Node> nodes(state.range(0) / sizeof(Node));
  std::vector<size_t> order(nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(1));
  for (size_t i = 0; i < order.size(); ++i) {
    nodes[order[i]].next = &nodes[order[(i + 1) % order.size()]];
  }
  const Node* p = &nodes[0];
  for (auto _ : state) {
    p = p->next;
    benchmark::DoNotOptimize(p);
  }
}
PMU_BENCHMARK(BM_SimChase)->Arg(4096)->Arg(64 << 20);

// One byte per iteration: taken when >= 128.
void Branches(pmubench::State& state, bool sorted) {
  std::vector<uint8_t> bytes(1 << 16);
  std::mt19937 rng(7);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  if (sorted) std::sort(bytes.begin(), bytes.end());
  uint64_t sum = 0;
  size_t i = 0;
  for (auto _ : state) {
    if (bytes[i] >= 128) {
      asm volatile("");
      sum += bytes[i];
    }
    i = (i + 1) & (bytes.size() - 1);
  }
  benchmark::DoNotOptimize(sum);
}
void BM_SimBranchSorted(pmubench::State& state) { Branches(state, true); }
PMU_BENCHMARK(BM_SimBranchSorted);
void BM_SimBranchShuffled(pmubench::State& state) { Branches(state, false); }
PMU_BENCHMARK(BM_SimBranchShuffled);

// Chatty cases: blocks of many sizes kept and freed, the heap grown, a
// block above glibc's mmap threshold freed (which raises the threshold by
// default), a label whose length follows the run.
void BM_SimChattyHeap(pmubench::State& state) {
  static auto* kept = new std::vector<std::unique_ptr<char[]>>();
  for (auto _ : state) {
    for (int i = 0; i < 40; ++i) {
      kept->emplace_back(new char[16 + (kept->size() * 37) % 3000]);
      if (kept->size() % 3 == 0) (*kept)[kept->size() / 2].reset();
    }
  }
  std::free(std::malloc(4 << 20));
  state.SetLabel(std::string(1 + kept->size() % 97, 'x'));
}
PMU_BENCHMARK(BM_SimChattyHeap);

// Trains callgrind's branch predictors with data-dependent outcomes at many
// branches: a sort of random numbers, different in every run of the case.
void BM_SimChattyBranches(pmubench::State& state) {
  static std::mt19937 random(static_cast<unsigned>(std::time(nullptr)));
  std::vector<int> values(4096);
  for (auto _ : state) {
    for (int& v : values) v = static_cast<int>(random());
    std::sort(values.begin(), values.end());
    benchmark::DoNotOptimize(values.data());
  }
}
PMU_BENCHMARK(BM_SimChattyBranches);

// A thread of the case's own each iteration, doing range(0) increments,
// joined: callgrind counts the loop's thread only, so the row says so.
void BM_SimStartsThread(pmubench::State& state) {
  for (auto _ : state) {
    std::thread thread([n = state.range(0)] {
      for (int64_t i = 0; i < n; ++i) asm volatile("");
    });
    thread.join();
  }
}
PMU_BENCHMARK(BM_SimStartsThread)->Arg(10)->Arg(100000);

#ifdef PMUBENCH_SIM_EXTRA_CASE
// The binary of a commit that adds a case: it registers and allocates more
// before the cases after it.
std::vector<std::string>* const kExtraStartUp =
    new std::vector<std::string>(100, std::string(40, 'e'));
void BM_SimAddedCase(pmubench::State& state) {
  for (auto _ : state) PMUBENCH_NOPS(10);
  benchmark::DoNotOptimize(kExtraStartUp);
}
PMU_BENCHMARK(BM_SimAddedCase)->Arg(1)->Arg(2);
#endif

// Heavy cases: glibc's memcpy, memmove and strlen on heap and stack buffers
// of many lengths and offsets, and std::map, std::unordered_map and strings,
// whose counts follow where buffers sit and what the heap holds.
void BM_SimHeavyHeapCopy(pmubench::State& state) {
  std::vector<char> src(8192, 'a'), dst(8192);
  std::string text;
  for (auto _ : state) {
    for (size_t n = 1; n < 4096; n = n * 3 / 2 + 1) {
      std::memcpy(dst.data() + n % 61, src.data() + n % 17, n);
      std::memmove(dst.data() + 1, dst.data() + n % 29, n);
    }
    text.clear();
    for (int i = 0; i < 20; ++i) text += std::to_string(i * 7919) + ",";
    benchmark::DoNotOptimize(std::strlen(text.c_str()));
    benchmark::DoNotOptimize(dst.data());
  }
}
PMU_BENCHMARK(BM_SimHeavyHeapCopy);

void BM_SimHeavyStackCopy(pmubench::State& state) {
  char src[4096], dst[4096];
  std::memset(src, 'b', sizeof(src));
  src[sizeof(src) - 1] = '\0';
  for (auto _ : state) {
    for (size_t n = 1; n < 4000; n = n * 3 / 2 + 1) {
      std::memcpy(dst + n % 13, src + n % 7, n);
    }
    benchmark::DoNotOptimize(std::strlen(src + 3));
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
}
PMU_BENCHMARK(BM_SimHeavyStackCopy);

void BM_SimHeavyMaps(pmubench::State& state) {
  for (auto _ : state) {
    std::map<uint64_t, std::string> ordered;
    std::unordered_map<std::string, uint64_t> hashed;
    for (uint64_t i = 0; i < 200; ++i) {
      const uint64_t key = i * 0x9e3779b97f4a7c15ULL;
      std::string value(1 + key % 40, 'v');
      hashed.emplace(value + std::to_string(i), key);
      ordered.emplace(key, std::move(value));
    }
    benchmark::DoNotOptimize(ordered);
    benchmark::DoNotOptimize(hashed);
  }
}
PMU_BENCHMARK(BM_SimHeavyMaps);

// Blocks above and below glibc's default mmap threshold (128 KiB).
void BM_SimHeavyBigBlocks(pmubench::State& state) {
  for (auto _ : state) {
    std::vector<int> grown;
    for (int i = 0; i < 50000; ++i) grown.push_back(i);
    std::vector<char> big(300 << 10, 'z');
    benchmark::DoNotOptimize(grown.data());
    benchmark::DoNotOptimize(big.data());
  }
}
PMU_BENCHMARK(BM_SimHeavyBigBlocks);

}  // namespace
