#include "framework/perf/sampling/sample_ring.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pmubench::perf {
namespace {

// Copies `n` bytes starting at ring offset `pos` (mod size) into `out`.
void CopyOut(std::span<const std::byte> data, uint64_t pos, size_t n,
             std::byte* out) {
  const size_t start = static_cast<size_t>(pos & (data.size() - 1));
  const size_t first = std::min(n, data.size() - start);
  std::memcpy(out, data.data() + start, first);
  std::memcpy(out + first, data.data(), n - first);
}

}  // namespace

DrainResult DrainRing(perf_event_mmap_page* meta, std::span<std::byte> data,
                      std::span<std::byte> scratch, RecordCallback on_record) {
  DrainResult result;
  // data_head: load, then smp_rmb() (acquire) before reading records.
  const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;  // only user space writes it
  const size_t size = data.size();
  while (size != 0 && head - tail >= sizeof(perf_event_header)) {
    perf_event_header header;
    CopyOut(data, tail, sizeof(header), reinterpret_cast<std::byte*>(&header));
    if (header.size < sizeof(header) || header.size > head - tail ||
        header.size > scratch.size()) {
      result.skipped_bytes += head - tail;
      tail = head;
      break;
    }
    const size_t start = static_cast<size_t>(tail & (size - 1));
    if (start + header.size <= size) {
      on_record(data.subspan(start, header.size));
    } else {  // wraps around the end of the data area
      CopyOut(data, tail, header.size, scratch.data());
      on_record(scratch.first(header.size));
    }
    tail += header.size;
    ++result.records;
  }
  // smp_mb() between reading the records and storing data_tail, so the
  // kernel never overwrites a record still being read.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  return result;
}

absl::StatusOr<SampleRing> SampleRing::Map(int fd, int pages_log2) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  int err = 0;
  for (int log2 = pages_log2; log2 >= 0; --log2) {
    const size_t length = page * (1 + (size_t{1} << log2));
    void* base =
        mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base != MAP_FAILED) return SampleRing(base, length);
    err = errno;
    if (err != EPERM && err != ENOMEM) break;
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "cannot mmap the sampling ring buffer: ", std::strerror(err),
      "; raise `ulimit -l` or /proc/sys/kernel/perf_event_mlock_kb"));
}

SampleRing::SampleRing(void* base, size_t length)
    : base_(base), length_(length), scratch_(kScratchBytes) {
  auto* meta = static_cast<perf_event_mmap_page*>(base);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // data_offset/data_size exist since Linux 4.1; before, data follows the
  // first page and fills the mapping.
  size_t offset = meta->data_offset != 0 ? meta->data_offset : page;
  size_t size = meta->data_size != 0 ? meta->data_size : length - page;
  data_ = std::span<std::byte>(static_cast<std::byte*>(base) + offset, size);
}

SampleRing::SampleRing(SampleRing&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      length_(std::exchange(other.length_, 0)),
      data_(std::exchange(other.data_, {})),
      scratch_(std::move(other.scratch_)) {}

SampleRing& SampleRing::operator=(SampleRing&& other) noexcept {
  if (this != &other) {
    Reset();
    base_ = std::exchange(other.base_, nullptr);
    length_ = std::exchange(other.length_, 0);
    data_ = std::exchange(other.data_, {});
    scratch_ = std::move(other.scratch_);
  }
  return *this;
}

SampleRing::~SampleRing() { Reset(); }

void SampleRing::Reset() noexcept {
  if (base_ != nullptr) munmap(base_, length_);
  base_ = nullptr;
  length_ = 0;
  data_ = {};
}

DrainResult SampleRing::Drain(RecordCallback on_record) {
  if (base_ == nullptr) return {};
  return DrainRing(static_cast<perf_event_mmap_page*>(base_), data_, scratch_,
                   on_record);
}

}  // namespace pmubench::perf
