// FreshPages: anonymous memory that has never been touched, so that writing
// one byte to a page costs exactly one (minor) page fault. The exact anchor
// the runner tests measure against.
#ifndef PMUBENCH_TESTS_RUNNER_FRESH_PAGES_H_
#define PMUBENCH_TESTS_RUNNER_FRESH_PAGES_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

namespace pmubench::testing {

class FreshPages {
 public:
  explicit FreshPages(size_t pages)
      : page_size_(static_cast<size_t>(::sysconf(_SC_PAGESIZE))),
        pages_(pages) {
    void* p = ::mmap(nullptr, (pages_ + 1) * page_size_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    // A transparent huge page would serve 512 pages with one fault.
    ::madvise(p, (pages_ + 1) * page_size_, MADV_NOHUGEPAGE);
    base_ = static_cast<char*>(p);
  }
  ~FreshPages() { ::munmap(base_, (pages_ + 1) * page_size_); }
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;

  // Writes one byte to each of the next `n` untouched pages (one fault
  // each). Past the end it touches nothing.
  // NOTE: not instrumented by AddressSanitizer: its check of each write reads
  // the shadow memory, whose first read faults in one more page per 8 pages.
  __attribute__((no_sanitize("address"))) void TouchNext(size_t n) {
    for (size_t i = 0; i < n && next_ < pages_; ++i, ++next_) {
      *static_cast<volatile char*>(base_ + next_ * page_size_) = 1;
    }
  }

  size_t touched() const { return next_; }

 private:
  size_t page_size_;
  size_t pages_;
  char* base_ = nullptr;
  size_t next_ = 0;
};

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_FRESH_PAGES_H_
