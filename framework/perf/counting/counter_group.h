// CounterGroup: a set of events opened as one perf_event group on the calling
// thread, enabled once and then read freely; batches take deltas between
// snapshots (no ioctl per batch).
//
//   auto pmus = PmuRegistry::Load();
//   auto events = ResolveEventList("task-clock,page-faults", *pmus);
//   absl::StatusOr<CounterGroup> group = CounterGroup::Open(*events, {});
//   GroupSnapshot a, b;
//   group->Snapshot(a);  Work();  group->Snapshot(b);
//   GroupDelta d = Delta(a, b, group->size());  // d.counts[i]: events[i]
//
// Lifetime: counters run from Open() until the object is destroyed (RAII,
// movable, not copyable; a moved-from group reads nothing). The group counts
// the thread that opened it only (pid 0, cpu -1); use it from that thread.
//
// Open() follows perf_event_open(2): the leader has disabled=1 (and pinned=1
// unless GroupOptions say otherwise), members are opened with the leader's
// fd, read_format = GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING,
// flags PERF_FLAG_FD_CLOEXEC, each event's first page mmapped, each fd's id
// taken with PERF_EVENT_IOC_ID, and one PERF_EVENT_IOC_ENABLE of the leader
// (the members, opened enabled, follow it). Privilege levels: an event's
// :u/:k modifiers decide; without one, exclude_kernel follows GroupOptions,
// except for software events the kernel takes on the thread's behalf (page
// faults, context switches, migrations), which count the kernel as perf
// stat does where perf_event_paranoid allows it (else user space only: see
// counts_kernel).
// exclude_hv is set unless GroupOptions say otherwise; PMUs that reject
// exclude bits (msr) get none, and then refuse an explicit :u or :k.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_COUNTER_GROUP_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_COUNTER_GROUP_H_

#include <linux/perf_event.h>
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/perf/counting/group_read.h"
#include "framework/perf/counting/page_mapping.h"
#include "framework/perf/counting/scoped_fd.h"
#include "framework/perf/events/event_spec.h"

namespace pmubench::perf {

// Generous upper bound; real core PMUs have 4-8 general counters.
inline constexpr int kMaxGroupEvents = 16;

struct GroupOptions {
  bool pinned = true;
  // For events without :u/:k modifiers, except the kernel-side software
  // events (page faults, context switches, migrations), which count the
  // kernel where permitted.
  bool exclude_kernel = true;
  bool exclude_hv = true;
  bool use_rdpmc = true;  // false forces the read(2) path (for tests)
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

// Counts between two snapshots, scaled for multiplexing by the enabled and
// running time between the same two snapshots.
struct GroupDelta {
  std::array<double, kMaxGroupEvents> counts{};
  int size = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
};

// Per-event facts decided at open time, for reporting.
struct OpenedEvent {
  ResolvedEvent event;
  perf_event_attr attr{};                      // as passed to perf_event_open
  ReadMethod read_method = ReadMethod::kRead;  // rdpmc when the page allows
  // True when the PMU rejected the exclude_* bits (EINVAL; PMUs with
  // PERF_PMU_CAP_NO_EXCLUDE such as msr) and the event was opened without
  // them: it then counts user and kernel alike (no modifier was given; an
  // explicit :u or :k is refused instead).
  bool exclude_bits_cleared = false;
  // True when the event counts what happens in the kernel too
  // (attr.exclude_kernel == 0): :k/:uk, GroupOptions::exclude_kernel false,
  // a kernel-side software event without modifiers where perf_event_paranoid
  // allowed it, or a PMU without exclude bits.
  bool counts_kernel = false;
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
  // hardware PMU or a core PMU without the event (ENOENT), permission
  // (EACCES/EPERM: perf_event_paranoid, CAP_PERFMON), too many open files
  // (EMFILE), more events than counters (EINVAL at open, or
  // FailedPrecondition when the pinned group is in error state right after
  // the enable), :u/:k on a PMU that cannot honour it (InvalidArgument).
  // Status codes: see perf_errors.h.
  static absl::StatusOr<CounterGroup> Open(
      const std::vector<ResolvedEvent>& events, const GroupOptions& options);

  // Hot path: reads every counter (in user space through the mmap pages
  // where possible, else one read(2) of the whole group). Allocates nothing.
  // Returns false when the group is in error state (a pinned group the PMU
  // could not schedule: read(2) returns 0 bytes); call Health() for why.
  // Out of line on purpose: every caller runs the same instructions around
  // the counter reads, so the overhead calibrated through one call site is
  // the overhead of every other (an inlined copy is scheduled per site).
  bool Snapshot(GroupSnapshot& out) noexcept;

  // OK, or a status that says which group failed, how many counters the
  // core PMU has, and which event to drop.
  absl::Status Health();

  // Counting off and on again: PERF_EVENT_IOC_DISABLE / _ENABLE of the
  // leader alone (perf_event_open(2), "ioctl(2) calls"); the members stay
  // enabled and count exactly while their leader does (never
  // PERF_IOC_FLAG_GROUP: see Toggle). A disabled group holds no counter, so
  // groups that do not fit the PMU at once can stay open and take turns; a
  // pinned group that was in error state leaves it when enabled. Enable()
  // returns Health().
  absl::Status Disable();
  absl::Status Enable();

  int size() const { return static_cast<int>(events_.size()); }
  const std::vector<OpenedEvent>& events() const { return events_; }

  // Number of read(2) calls this group has made (Snapshot's fallback path
  // and Health()): one per read-path snapshot, whatever the group size.
  uint64_t read_syscalls() const { return read_syscalls_; }

 private:
  CounterGroup() = default;
  absl::Status OpenMember(const ResolvedEvent& event,
                          const GroupOptions& options, int group_size);
  void ChooseReadMethod(bool use_rdpmc);
  void ChooseSnapshotPath();
  // One ioctl(2) `request` on the leader for the whole group.
  absl::Status Toggle(unsigned long request, const char* name);
  // The one read(2) of the group: fills `out` and returns the byte count
  // read(2) returned (-1 with errno set on failure); `out` is complete only
  // when that is the whole group and every id matched.
  ssize_t ReadGroup(GroupSnapshot& out, bool& complete) noexcept;

  std::vector<OpenedEvent> events_;
  std::vector<ScopedFd> fds_;       // fds_[0] is the leader
  std::vector<PageMapping> pages_;  // empty where mmap failed
  // pages_[i].get(), contiguous for ReadGroupPages (ChooseReadMethod).
  std::array<const perf_event_mmap_page*, kMaxGroupEvents> page_ptrs_{};
  std::array<uint64_t, kMaxGroupEvents> ids_{};  // PERF_EVENT_IOC_ID per fd
  bool all_rdpmc_ = false;                       // every page allows rdpmc
  bool pinned_ = false;                          // the leader is pinned

  // What Snapshot runs, chosen once by ChooseReadMethod: a pinned group's
  // page read unrolled for its size (SnapshotPinned<N>), else the general
  // page read with time extension or read(2) (SnapshotGeneral). A moved-from
  // slot goes back to SnapshotGeneral, which reads nothing without fds.
  using SnapshotPath = bool (*)(CounterGroup& group,
                                GroupSnapshot& out) noexcept;
  static bool SnapshotGeneral(CounterGroup& group, GroupSnapshot& out) noexcept;
  template <int N>
  static bool SnapshotPinned(CounterGroup& group, GroupSnapshot& out) noexcept;
  struct SnapshotPathSlot {
    SnapshotPath path = &CounterGroup::SnapshotGeneral;
    SnapshotPathSlot() = default;
    SnapshotPathSlot(SnapshotPathSlot&& other) noexcept
        : path(std::exchange(other.path, &CounterGroup::SnapshotGeneral)) {}
    SnapshotPathSlot& operator=(SnapshotPathSlot&& other) noexcept {
      path = std::exchange(other.path, &CounterGroup::SnapshotGeneral);
      return *this;
    }
  };
  SnapshotPathSlot snapshot_path_;
  uint64_t read_syscalls_ = 0;
  std::array<uint64_t, GroupReadWords(kMaxGroupEvents)> read_buf_{};
};

// True for software events the kernel takes on the thread's behalf (page
// faults, context switches, migrations, alignment and emulation faults):
// without a :u/:k modifier they count the kernel too, as perf stat does.
bool CountsKernelByDefault(const ResolvedEvent& event);

// The attr fields every open of `event` shares (counting or sampling): size,
// type, config words, and exclude_user/exclude_kernel from its :u/:k
// modifiers, else exclude_kernel = `exclude_kernel_default` unless the event
// counts the kernel by default. Callers add read_format, sampling, pinning.
perf_event_attr EventAttr(const ResolvedEvent& event,
                          bool exclude_kernel_default);

// Counts between `start` and `stop` for a group of `size` events.
GroupDelta Delta(const GroupSnapshot& start, const GroupSnapshot& stop,
                 int size);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_COUNTER_GROUP_H_
