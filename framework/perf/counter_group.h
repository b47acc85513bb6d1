// CounterGroup: a set of events opened as one perf_event group on the calling
// thread, enabled once and then read freely; batches take deltas between
// snapshots (no ioctl per batch).
//
//   auto pmus = PmuRegistry::Load();
//   auto events = ResolveEventList("task-clock,page-faults", *pmus);
//   absl::StatusOr<CounterGroup> group = CounterGroup::Open(*events, {});
//   GroupSnapshot a, b;
//   group->Snapshot(a);  Work();  group->Snapshot(b);
//   GroupDelta d = Delta(a, b);   // d.counts[i] is events[i]'s count, scaled
//
// Lifetime: counters run from Open() until the object is destroyed (RAII,
// movable, not copyable). The group counts the thread that opened it only
// (pid 0, cpu -1); use it from that thread.
//
// Open() follows DESIGN.md: the leader has pinned=1 and disabled=1, members
// are opened with the leader's fd, read_format = GROUP | ID |
// TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, flags PERF_FLAG_FD_CLOEXEC,
// exclude_kernel and exclude_hv unless an event's modifiers say otherwise
// (and cleared for PMUs that reject exclude bits, such as msr), each event's
// first page mmapped, and one PERF_EVENT_IOC_ENABLE with PERF_IOC_FLAG_GROUP.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTER_GROUP_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTER_GROUP_H_

#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/perf/event_spec.h"

namespace pmubench::perf {

// Generous upper bound; real core PMUs have 4-8 general counters.
inline constexpr int kMaxGroupEvents = 16;

struct GroupOptions {
  bool pinned = true;
  bool exclude_kernel = true;  // default for events without :u/:k modifiers
  bool exclude_hv = true;
  bool use_rdpmc = true;       // false forces the read(2) path (for tests)
};

enum class ReadMethod { kRdpmc, kRead };
const char* ReadMethodName(ReadMethod m);  // "rdpmc" or "read"

// Raw counter values of every event at one instant, in group order.
struct GroupSnapshot {
  std::array<uint64_t, kMaxGroupEvents> counts{};
  uint64_t time_enabled = 0;  // the leader's
  uint64_t time_running = 0;
  bool used_read_syscall = false;  // true when this snapshot took read(2)
};

// Counts between two snapshots, scaled for multiplexing.
struct GroupDelta {
  std::array<double, kMaxGroupEvents> counts{};
  int size = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
  double running_fraction = 1.0;  // time_running / time_enabled
};

// Per-event facts decided at open time, for reporting.
struct OpenedEvent {
  ResolvedEvent event;
  perf_event_attr attr{};      // as passed to perf_event_open
  ReadMethod read_method = ReadMethod::kRead;  // rdpmc when the page allows
  // True when the PMU rejected the exclude_* bits (EINVAL; PMUs with
  // PERF_PMU_CAP_NO_EXCLUDE such as msr) and the event was opened without
  // them: it then counts user and kernel alike, whatever its modifiers say.
  bool exclude_bits_cleared = false;
  // Why this hardware event is read with read(2) although user-space reads
  // were wanted, with the knob that allows them on this architecture
  // (`sysctl kernel.perf_user_access=1` on arm64, cpu/rdpmc on x86), or why
  // its group is (a member user space cannot read). Empty when the event is
  // read in user space, when the caller turned user reads off
  // (GroupOptions::use_rdpmc), and for events without a hardware counter
  // (software, msr): nothing would enable those. For a one-time notice.
  std::string read_fallback_reason;
};

class CounterGroup {
 public:
  // Opens, mmaps and enables the group. Errors carry their remedy: no
  // hardware PMU (ENOENT), permission (EACCES/EPERM: perf_event_paranoid,
  // CAP_PERFMON), too many open files (EMFILE), more events than counters
  // (EINVAL at open, or FailedPrecondition when the pinned group is in error
  // state right after the enable). Status codes: see perf_errors.h.
  static absl::StatusOr<CounterGroup> Open(
      const std::vector<ResolvedEvent>& events, const GroupOptions& options);

  CounterGroup(CounterGroup&& other) noexcept;
  CounterGroup& operator=(CounterGroup&& other) noexcept;
  CounterGroup(const CounterGroup&) = delete;
  CounterGroup& operator=(const CounterGroup&) = delete;
  ~CounterGroup();

  // Hot path: reads every counter (rdpmc through the mmap pages where
  // possible, else one read(2) of the whole group). Allocates nothing.
  // Returns false when the group is in error state (a pinned group the PMU
  // could not schedule: read(2) returns 0 bytes); call Health() for why.
  bool Snapshot(GroupSnapshot& out) noexcept;

  // OK, or a status that says which group failed, how many counters the
  // core PMU has, and which events to drop.
  absl::Status Health();

  int size() const { return static_cast<int>(events_.size()); }
  const std::vector<OpenedEvent>& events() const { return events_; }
  bool pinned() const { return options_.pinned; }
  const GroupOptions& options() const { return options_; }

  // Number of read(2) calls this group has made (Snapshot's fallback path
  // and Health()): one per read-path snapshot, whatever the group size.
  uint64_t read_syscalls() const { return read_syscalls_; }

 private:
  CounterGroup() = default;
  void Close() noexcept;
  void ChooseReadMethod(bool use_rdpmc);
  bool ReadSyscall(GroupSnapshot& out) noexcept;

  GroupOptions options_;
  std::vector<OpenedEvent> events_;
  std::vector<int> fds_;                       // fds_[0] is the leader
  std::vector<perf_event_mmap_page*> pages_;   // nullptr where not mmapped
  bool all_rdpmc_ = false;                     // every page allows rdpmc
  uint64_t read_syscalls_ = 0;
  std::array<uint64_t, 3 + 2 * kMaxGroupEvents> read_buf_{};
};

// Counts between `start` and `stop` for a group of `size` events.
GroupDelta Delta(const GroupSnapshot& start, const GroupSnapshot& stop,
                 int size);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTER_GROUP_H_
