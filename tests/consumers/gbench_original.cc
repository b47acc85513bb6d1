// A Google Benchmark file as its user had it, before pmubench: the include
// spelled with quotes, as most projects write it, and Abseil used directly.
// The consumer projects hold this file converted by scripts/convert as
// bench.cc; run.sh checks that they are exactly that.
//
// Every case touches a known number of fresh pages per iteration, so its
// page-faults per iteration are exact.
#include "benchmark/benchmark.h"
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"

namespace {

// Anonymous memory never touched: writing one byte to a page is one fault.
class FreshPages {
 public:
  explicit FreshPages(size_t pages)
      : page_size_(static_cast<size_t>(::sysconf(_SC_PAGESIZE))),
        bytes_((pages + 1) * page_size_) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    // A transparent huge page would serve 512 pages with one fault.
    ::madvise(p, bytes_, MADV_NOHUGEPAGE);
    base_ = static_cast<char*>(p);
  }
  ~FreshPages() { ::munmap(base_, bytes_); }

  void TouchNext(size_t n) {
    for (size_t i = 0; i < n && (next_ + 1) * page_size_ < bytes_; ++i) {
      *static_cast<volatile char*>(base_ + next_++ * page_size_) = 1;
    }
  }

 private:
  size_t page_size_;
  size_t bytes_;
  char* base_;
  size_t next_ = 0;
};

void BM_TouchPage(benchmark::State& state) {
  FreshPages pages(static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(1);
}
BENCHMARK(BM_TouchPage)->Iterations(64);

template <int kPages>
void BM_TouchPages(benchmark::State& state) {
  FreshPages pages(kPages * static_cast<size_t>(state.max_iterations));
  for (auto _ : state) pages.TouchNext(kPages);
  state.SetLabel(absl::StrCat(kPages, " pages per iteration"));
}
BENCHMARK_TEMPLATE(BM_TouchPages, 3)->Iterations(20);

// 30 is not a multiple of 4: the batch runs (and counts) 32 iterations.
void BM_TouchBatch(benchmark::State& state) {
  constexpr int kBatch = 4;
  FreshPages pages(static_cast<size_t>(state.max_iterations) + kBatch);
  while (state.KeepRunningBatch(kBatch)) pages.TouchNext(kBatch);
}
BENCHMARK(BM_TouchBatch)->Iterations(30);

// SetUp's faults are not counted; the body's are.
class Pages : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State& state) override {
    FreshPages setup(64);
    setup.TouchNext(64);
    // Enough for the case that touches the most: 4 pages per iteration.
    pages_ = std::make_unique<FreshPages>(
        4 * static_cast<size_t>(state.max_iterations));
  }
  void TearDown(const benchmark::State&) override { pages_.reset(); }

 protected:
  std::unique_ptr<FreshPages> pages_;
};

BENCHMARK_F(Pages, TouchTwo)(benchmark::State& state) {
  for (auto _ : state) pages_->TouchNext(2);
}

BENCHMARK_DEFINE_F(Pages, TouchFour)(benchmark::State& state) {
  for (auto _ : state) pages_->TouchNext(4);
}
BENCHMARK_REGISTER_F(Pages, TouchFour)->Iterations(10);

template <int kPages>
class PagesOf : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State& state) override {
    pages_ = std::make_unique<FreshPages>(
        kPages * static_cast<size_t>(state.max_iterations));
  }
  void TearDown(const benchmark::State&) override { pages_.reset(); }

 protected:
  std::unique_ptr<FreshPages> pages_;
};

BENCHMARK_TEMPLATE_F(PagesOf, Touch, 5)(benchmark::State& state) {
  for (auto _ : state) this->pages_->TouchNext(5);
}

}  // namespace

BENCHMARK_MAIN();
