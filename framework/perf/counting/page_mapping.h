// PageMapping: owns one read-only shared mapping of a perf event's first
// page, its perf_event_mmap_page (linux/perf_event.h), and unmaps it when
// destroyed (RAII, movable, not copyable).
//
//   PageMapping page = PageMapping::Map(fd);
//   if (page.get() != nullptr) ReadMmapPage(page.get());
//
// A failed mmap yields an empty mapping (get() == nullptr): it only costs
// the user-space read path, so it is not an error.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_PAGE_MAPPING_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_PAGE_MAPPING_H_

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <utility>

namespace pmubench::perf {

class PageMapping {
 public:
  PageMapping() = default;
  static PageMapping Map(int fd) {
    const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* page = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) return PageMapping();
    return PageMapping(static_cast<perf_event_mmap_page*>(page), size);
  }
  PageMapping(PageMapping&& other) noexcept
      : page_(std::exchange(other.page_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  PageMapping& operator=(PageMapping&& other) noexcept {
    if (this != &other) {
      Reset();
      page_ = std::exchange(other.page_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PageMapping(const PageMapping&) = delete;
  PageMapping& operator=(const PageMapping&) = delete;
  ~PageMapping() { Reset(); }

  // The mapped page, or nullptr when the mmap failed.
  const perf_event_mmap_page* get() const { return page_; }

  void Reset() noexcept {
    if (page_ != nullptr) munmap(page_, size_);
    page_ = nullptr;
    size_ = 0;
  }

 private:
  PageMapping(perf_event_mmap_page* page, size_t size)
      : page_(page), size_(size) {}

  perf_event_mmap_page* page_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_PAGE_MAPPING_H_
