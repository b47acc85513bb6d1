// Sampler: one sampling perf event on the calling thread, its ring buffer,
// and the tally of what the ring held (samples, lost records, throttling).
//
//   SamplerOptions opts;  opts.period = 10000;  // cpu-clock: every 10 us
//   absl::StatusOr<Sampler> s = Sampler::Open(event, opts);
//   s->Enable();  Work();  s->Disable();
//   s->Drain([](const ParsedRecord& r) { ... });  // samples only
//
// The event is opened disabled (pid 0, cpu -1) with sample_period, the
// sample_type IP | TID | TIME | PERIOD (| CALLCHAIN), and the privilege
// bits a counting group would use (counter_group.h: an explicit :u/:k
// decides; else exclude_kernel, except for kernel-side software events).
#ifndef PMUBENCH_FRAMEWORK_PERF_SAMPLING_SAMPLER_H_
#define PMUBENCH_FRAMEWORK_PERF_SAMPLING_SAMPLER_H_

#include <linux/perf_event.h>

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/perf/counting/scoped_fd.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/sampling/perf_record.h"
#include "framework/perf/sampling/sample_ring.h"

namespace pmubench::perf {

struct SamplerOptions {
  uint64_t period = 1;     // events per sample (perf_event_attr.sample_period)
  bool callchain = false;  // PERF_SAMPLE_CALLCHAIN
  bool exclude_kernel = true;
  int ring_pages_log2 = 10;  // 2^n data pages (4 MiB with 4 KiB pages)
};

// What the ring held beyond the samples themselves.
struct SampleTally {
  SampleTally& operator+=(const SampleTally& o) {
    samples += o.samples;
    lost_records += o.lost_records;
    lost_samples += o.lost_samples;
    throttles += o.throttles;
    unthrottles += o.unthrottles;
    malformed += o.malformed;
    return *this;
  }

  uint64_t samples = 0;
  uint64_t lost_records = 0;  // PERF_RECORD_LOST records
  uint64_t lost_samples = 0;  // the sum of their `lost` counts
  uint64_t throttles = 0;     // PERF_RECORD_THROTTLE
  uint64_t unthrottles = 0;
  uint64_t malformed = 0;  // records the parser refused, plus resyncs
};

class Sampler {
 public:
  static absl::StatusOr<Sampler> Open(const ResolvedEvent& event,
                                      const SamplerOptions& options);

  absl::Status Enable();
  absl::Status Disable();

  // Reads every record now in the ring; calls `on_sample` for each sample.
  // One thread at a time (a reader thread may drain while the sampled
  // thread runs: the ring is a single-producer, single-consumer queue).
  void Drain(absl::FunctionRef<void(const ParsedRecord&)> on_sample);

  const SampleTally& tally() const { return tally_; }
  // For poll(2): readable when the kernel has woken readers of the ring.
  int fd() const { return fd_.get(); }
  const perf_event_attr& attr() const { return attr_; }

 private:
  Sampler(ScopedFd fd, SampleRing ring, const perf_event_attr& attr)
      : fd_(std::move(fd)), ring_(std::move(ring)), attr_(attr) {}

  ScopedFd fd_;
  SampleRing ring_;
  perf_event_attr attr_{};
  SampleTally tally_;
  ParsedRecord record_;  // reused: its callchain keeps its capacity
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SAMPLING_SAMPLER_H_
