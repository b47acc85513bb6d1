#include "framework/perf/sampling/sampler.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/counting/perf_errors.h"

namespace pmubench::perf {
namespace {

perf_event_attr SamplingAttr(const ResolvedEvent& event,
                             const SamplerOptions& options) {
  perf_event_attr attr = EventAttr(event, options.exclude_kernel);
  attr.sample_period = options.period;
  attr.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  if (options.callchain) attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
  attr.disabled = 1;
  attr.exclude_hv = 1;
  // Kernel frames in a user-only profile would be unsymbolizable noise.
  attr.exclude_callchain_kernel = attr.exclude_kernel;
  return attr;
}

ScopedFd OpenEvent(perf_event_attr* attr) {
  return ScopedFd(
      static_cast<int>(syscall(SYS_perf_event_open, attr,
                               /*pid=*/0, /*cpu=*/-1,
                               /*group_fd=*/-1, PERF_FLAG_FD_CLOEXEC)));
}

}  // namespace

absl::StatusOr<Sampler> Sampler::Open(const ResolvedEvent& event,
                                      const SamplerOptions& options) {
  if (options.period == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampling ", event.spec, " needs a period of at least 1 (",
                     event.spec, "@1000 samples every 1000 events)"));
  }
  perf_event_attr attr = SamplingAttr(event, options);
  ScopedFd fd = OpenEvent(&attr);
  if (!fd.valid() && (errno == EACCES || errno == EPERM) &&
      !event.modifiers.explicit_ && attr.exclude_kernel == 0 &&
      options.exclude_kernel) {
    attr.exclude_kernel = 1;  // perf_event_paranoid >= 2: user space only
    attr.exclude_callchain_kernel = 1;
    fd = OpenEvent(&attr);
  }
  if (!fd.valid()) return PerfOpenError(errno, event, 0, 1);
  absl::StatusOr<SampleRing> ring =
      SampleRing::Map(fd.get(), options.ring_pages_log2);
  if (!ring.ok()) return ring.status();
  return Sampler(std::move(fd), *std::move(ring), attr);
}

absl::Status Sampler::Enable() {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_ENABLE, 0) == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("ioctl(PERF_EVENT_IOC_ENABLE) on a sampling event: ",
                   std::strerror(errno)));
}

absl::Status Sampler::Disable() {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_DISABLE, 0) == 0) {
    return absl::OkStatus();
  }
  return absl::InternalError(
      absl::StrCat("ioctl(PERF_EVENT_IOC_DISABLE) on a sampling event: ",
                   std::strerror(errno)));
}

void Sampler::Drain(absl::FunctionRef<void(const ParsedRecord&)> on_sample) {
  const DrainResult drained =
      ring_.Drain([&](std::span<const std::byte> bytes) {
        if (ParseRecord(bytes, attr_.sample_type, record_) !=
            ParseStatus::kOk) {
          ++tally_.malformed;
          return;
        }
        switch (record_.kind) {
          case RecordKind::kSample:
            ++tally_.samples;
            on_sample(record_);
            break;
          case RecordKind::kLost:
            ++tally_.lost_records;
            tally_.lost_samples += record_.lost;
            break;
          case RecordKind::kThrottle:
            ++tally_.throttles;
            break;
          case RecordKind::kUnthrottle:
            ++tally_.unthrottles;
            break;
          case RecordKind::kOther:
            break;
        }
      });
  if (drained.skipped_bytes != 0) ++tally_.malformed;
}

}  // namespace pmubench::perf
