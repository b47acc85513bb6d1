// SampleRing: the ring buffer a sampling perf event writes records into, read
// as perf_event_open(2) "MMAP layout" prescribes: load data_head, then a read
// barrier; consume the records between data_tail and data_head; then a full
// barrier and store data_tail, which hands the space back to the kernel.
//
//   absl::StatusOr<SampleRing> ring = SampleRing::Map(fd, /*pages_log2=*/7);
//   ring->Drain([](std::span<const std::byte> record) { ... });
//
// A record that wraps around the end of the data area is copied whole into a
// scratch buffer first, so callers always see one contiguous record.
// DrainRing is the same reader over any memory (tests use a synthetic page).
#ifndef PMUBENCH_FRAMEWORK_PERF_SAMPLING_SAMPLE_RING_H_
#define PMUBENCH_FRAMEWORK_PERF_SAMPLING_SAMPLE_RING_H_

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace pmubench::perf {

using RecordCallback = absl::FunctionRef<void(std::span<const std::byte>)>;

struct DrainResult {
  uint64_t records = 0;
  // Bytes skipped because a header was impossible (size smaller than a
  // header or larger than what the kernel published): the reader then
  // drops everything up to data_head rather than loop or read garbage.
  uint64_t skipped_bytes = 0;
};

// Consumes every complete record of the ring whose control page is `meta`
// and whose data area (data_size bytes, a power of two) is `data`.
// `scratch` must hold 64 KiB (perf_event_header.size is a u16).
DrainResult DrainRing(perf_event_mmap_page* meta, std::span<std::byte> data,
                      std::span<std::byte> scratch, RecordCallback on_record);

class SampleRing {
 public:
  static constexpr size_t kScratchBytes = 1 << 16;

  // Maps the control page plus 2^pages_log2 data pages of `fd` read-write
  // (writing data_tail is what makes the ring a ring: without PROT_WRITE the
  // kernel overwrites old records instead). On EPERM/ENOMEM (the locked
  // memory limit, perf_event_mlock_kb) it halves the size down to one page.
  static absl::StatusOr<SampleRing> Map(int fd, int pages_log2);

  SampleRing(SampleRing&& other) noexcept;
  SampleRing& operator=(SampleRing&& other) noexcept;
  SampleRing(const SampleRing&) = delete;
  SampleRing& operator=(const SampleRing&) = delete;
  ~SampleRing();

  DrainResult Drain(RecordCallback on_record);

 private:
  SampleRing(void* base, size_t length);
  void Reset() noexcept;

  void* base_ = nullptr;
  size_t length_ = 0;
  std::span<std::byte> data_;
  std::vector<std::byte> scratch_;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SAMPLING_SAMPLE_RING_H_
