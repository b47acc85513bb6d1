#include "framework/perf/counting/counter_group.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/perf/counting/counter_math.h"
#include "framework/perf/counting/mmap_reader.h"
#include "framework/perf/counting/perf_errors.h"
#include "framework/perf/counting/pinned_page_read.h"
#include "framework/perf/counting/user_read_refusal.h"
#include "framework/perf/events/pmu.h"
#include "framework/perf/system/machine.h"

namespace pmubench::perf {
namespace {

// glibc has no wrapper (perf_event_open(2), NOTES).
ScopedFd PerfEventOpen(perf_event_attr* attr, int group_fd) {
  return ScopedFd(static_cast<int>(syscall(SYS_perf_event_open, attr,
                                           /*pid=*/0, /*cpu=*/-1, group_fd,
                                           PERF_FLAG_FD_CLOEXEC)));
}

// Valgrind decodes neither x86-64's rdpmc nor arm64's mrs of the PMU
// counters: the program stops with SIGILL ("Unrecognised instruction"). A
// group opened under it (a case that probes the PMU at registration, in the
// process --pmubench_simulate starts under callgrind on a machine with a
// PMU) must never execute them, so it is read with read(2).
bool UserReadsCanRun() { return RUNNING_ON_VALGRIND == 0; }

perf_event_attr MakeAttr(const ResolvedEvent& event,
                         const GroupOptions& options, bool leader) {
  perf_event_attr attr = EventAttr(event, options.exclude_kernel);
  attr.read_format = kGroupReadFormat;
  // Members follow the leader: only the leader is disabled at open and pinned.
  attr.disabled = leader ? 1 : 0;
  attr.pinned = leader && options.pinned ? 1 : 0;
  attr.exclude_hv = options.exclude_hv ? 1 : 0;
  return attr;
}

bool HasExcludeBits(const perf_event_attr& attr) {
  return attr.exclude_user || attr.exclude_kernel || attr.exclude_hv ||
         attr.exclude_idle || attr.exclude_host || attr.exclude_guest;
}

void ClearExcludeBits(perf_event_attr& attr) {
  attr.exclude_user = 0;
  attr.exclude_kernel = 0;
  attr.exclude_hv = 0;
  attr.exclude_idle = 0;
  attr.exclude_host = 0;
  attr.exclude_guest = 0;
}

// What decides whether user space may read `e`'s counter, for the notice.
UserReadFacts FactsFor(const OpenedEvent& e, const perf_event_mmap_page* page) {
  UserReadFacts facts;
  facts.spec = e.event.spec;
  facts.core_pmu = e.event.core_pmu;
  facts.user_read_term_set = e.event.user_read_term_set;
  facts.page_mapped = page != nullptr;
  facts.perf_user_access = PerfUserAccess();
  facts.x86_rdpmc = ReadIntFile(absl::StrCat(
      kDefaultSysfsRoot, "/",
      e.event.core_pmu.empty() ? "cpu" : e.event.core_pmu, "/rdpmc"));
  if (page != nullptr) {
    const volatile perf_event_mmap_page* pc = page;
    facts.cap_user_rdpmc = pc->cap_user_rdpmc;
    facts.index = pc->index;
  }
  return facts;
}

std::string SpecList(const std::vector<OpenedEvent>& events) {
  return absl::StrJoin(events, ",", [](std::string* out, const OpenedEvent& e) {
    out->append(e.event.spec);
  });
}

}  // namespace

// Software events the kernel takes on the thread's behalf: context switches
// and migrations happen only in the kernel, and faults taken in kernel mode
// (a read(2) into fresh pages) are the thread's faults too. With
// exclude_kernel they would read 0 or miss those; perf stat counts them.
// The clocks are left alone: they count the thread's time either way.
perf_event_attr EventAttr(const ResolvedEvent& event,
                          bool exclude_kernel_default) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = event.type;
  attr.config = event.config;
  attr.config1 = event.config1;
  attr.config2 = event.config2;
  if (event.modifiers.explicit_) {
    attr.exclude_user = event.modifiers.user ? 0 : 1;
    attr.exclude_kernel = event.modifiers.kernel ? 0 : 1;
  } else {
    attr.exclude_kernel =
        exclude_kernel_default && !CountsKernelByDefault(event) ? 1 : 0;
  }
  return attr;
}

bool CountsKernelByDefault(const ResolvedEvent& event) {
  if (event.type != PERF_TYPE_SOFTWARE) return false;
  switch (event.config) {
    case PERF_COUNT_SW_PAGE_FAULTS:
    case PERF_COUNT_SW_PAGE_FAULTS_MIN:
    case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
    case PERF_COUNT_SW_CONTEXT_SWITCHES:
    case PERF_COUNT_SW_CPU_MIGRATIONS:
    case PERF_COUNT_SW_CGROUP_SWITCHES:
    case PERF_COUNT_SW_ALIGNMENT_FAULTS:
    case PERF_COUNT_SW_EMULATION_FAULTS:
      return true;
    default:
      return false;
  }
}

const char* ReadMethodName(ReadMethod m) {
  return m == ReadMethod::kRdpmc ? "rdpmc" : "read";
}

// Opens `event` as the next member (the leader when none is open yet), with
// two retries: without exclude_kernel where counting the kernel by default
// was refused (EACCES/EPERM), and without any exclude bit where the PMU
// rejects them (EINVAL).
absl::Status CounterGroup::OpenMember(const ResolvedEvent& event,
                                      const GroupOptions& options,
                                      int group_size) {
  const int index = size();
  const int leader_fd = fds_.empty() ? -1 : fds_[0].get();
  OpenedEvent opened;
  opened.event = event;
  opened.attr = MakeAttr(event, options, /*leader=*/index == 0);
  ScopedFd fd = PerfEventOpen(&opened.attr, leader_fd);
  int err = fd.valid() ? 0 : errno;
  if ((err == EACCES || err == EPERM) && CountsKernelByDefault(event) &&
      !event.modifiers.explicit_ && options.exclude_kernel) {
    opened.attr.exclude_kernel = 1;  // perf_event_paranoid >= 2: user only
    fd = PerfEventOpen(&opened.attr, leader_fd);
    err = fd.valid() ? 0 : errno;
  }
  if (err == EINVAL && HasExcludeBits(opened.attr)) {
    // PMUs with PERF_PMU_CAP_NO_EXCLUDE (msr, many uncore PMUs) reject any
    // exclude_* bit with EINVAL (kernel/events/core.c, perf_try_init_event).
    perf_event_attr retry = opened.attr;
    ClearExcludeBits(retry);
    fd = PerfEventOpen(&retry, leader_fd);
    if (fd.valid()) {
      const Modifiers& m = event.modifiers;
      if (m.explicit_ && !(m.user && m.kernel)) {
        return ModifierNotSeparableError(event);  // fd closes on return
      }
      opened.attr = retry;
      opened.exclude_bits_cleared = true;
      err = 0;
    } else if (errno != EINVAL) {
      err = errno;  // e.g. EACCES: counting the kernel is not allowed
    }
  }
  if (!fd.valid()) {
    return PerfOpenError(err, event, index, group_size);
  }
  // PERF_FORMAT_ID: the id read(2) reports for this event.
  if (ioctl(fd.get(), PERF_EVENT_IOC_ID, &ids_[index]) != 0) {
    return absl::InternalError(absl::StrCat("ioctl(PERF_EVENT_IOC_ID) on ",
                                            event.spec, ": ",
                                            std::strerror(errno)));
  }
  opened.counts_kernel = opened.attr.exclude_kernel == 0;
  pages_.push_back(PageMapping::Map(fd.get()));
  fds_.push_back(std::move(fd));
  events_.push_back(std::move(opened));
  return absl::OkStatus();
}

absl::StatusOr<CounterGroup> CounterGroup::Open(
    const std::vector<ResolvedEvent>& events, const GroupOptions& options) {
  if (events.empty()) {
    return absl::InvalidArgumentError(
        "a counter group needs at least one event (for example task-clock)");
  }
  if (events.size() > static_cast<size_t>(kMaxGroupEvents)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a counter group holds at most ", kMaxGroupEvents, " events, got ",
        events.size(), "; split the events across runs"));
  }
  CounterGroup group;
  group.pinned_ = options.pinned;
  const int group_size = static_cast<int>(events.size());
  for (const ResolvedEvent& event : events) {
    absl::Status opened = group.OpenMember(event, options, group_size);
    if (!opened.ok()) return opened;
  }
  if (absl::Status enabled =
          group.Toggle(PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
      !enabled.ok()) {
    return enabled;
  }
  group.ChooseReadMethod(options.use_rdpmc);
  absl::Status health = group.Health();
  if (!health.ok()) return health;
  return group;
}

absl::Status CounterGroup::Toggle(unsigned long request, const char* name) {
  if (fds_.empty()) {
    return absl::FailedPreconditionError(
        "the counter group was moved from or closed; open a new one");
  }
  // The leader alone, never PERF_IOC_FLAG_GROUP: members stay enabled and
  // count whenever their leader's group is on the PMU (perf_event_open(2):
  // members "will be started when the group leader is enabled"). With the
  // flag, a disable turns every member off, and the enable turns them on
  // one by one, each rescheduling only its own PMU's events: a member on
  // another PMU than the leader's (page-faults under task-clock, msr/tsc/
  // under a software leader) then stays off the PMU until the thread is
  // next switched in, reading 0 while the leader's times say it ran
  // (Linux 6.18; ctx_resched in kernel/events/core.c).
  if (ioctl(fds_[0].get(), request, 0) != 0) {
    const int err = errno;
    return absl::InternalError(absl::StrCat("ioctl(", name, ") on the group ",
                                            SpecList(events_), ": ",
                                            std::strerror(err)));
  }
  return absl::OkStatus();
}

absl::Status CounterGroup::Disable() {
  return Toggle(PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
}

absl::Status CounterGroup::Enable() {
  absl::Status enabled = Toggle(PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
  return enabled.ok() ? Health() : enabled;
}

// After the enable the kernel has scheduled the pinned group and filled each
// page's cap_user_rdpmc and index (arch_perf_update_userpage). The group is
// read in user space only when every member's page allows it.
void CounterGroup::ChooseReadMethod(bool use_rdpmc) {
  const size_t n = events_.size();
  std::array<bool, kMaxGroupEvents> readable{};
  int first_unreadable = -1;
  const bool user_reads_run = UserReadsCanRun();
  for (size_t i = 0; i < n; ++i) {
    const perf_event_mmap_page* page = pages_[i].get();
    page_ptrs_[i] = page;
    // As Snapshot reads it (ReadGroupPages): the leader with its times,
    // each member's count alone.
    uint64_t count = 0;
    readable[i] =
        user_reads_run && page != nullptr &&
        (i == 0 ? ReadMmapPage(page).has_value() : ReadPageCount(page, count));
    if (!readable[i] && first_unreadable < 0) {
      first_unreadable = static_cast<int>(i);
    }
  }
  all_rdpmc_ = use_rdpmc && first_unreadable < 0;
  ChooseSnapshotPath();
  for (size_t i = 0; i < n; ++i) {
    OpenedEvent& e = events_[i];
    e.read_method = all_rdpmc_ ? ReadMethod::kRdpmc : ReadMethod::kRead;
    if (all_rdpmc_ || !use_rdpmc) continue;
    if (!user_reads_run) {
      e.read_fallback_reason = absl::StrCat(
          "'", e.event.spec,
          "' is read with read(2): this process runs under valgrind, which "
          "cannot execute the user-space counter read");
    } else if (readable[i]) {
      e.read_fallback_reason = absl::StrCat(
          "'", e.event.spec, "' is read with read(2): its group also holds '",
          events_[first_unreadable].event.spec,
          "', which user space cannot read; count it in a group of its own");
    } else if (e.event.needs_hardware_pmu) {
      e.read_fallback_reason =
          UserReadRefusalReason(FactsFor(e, pages_[i].get()));
    }
  }
}

ssize_t CounterGroup::ReadGroup(GroupSnapshot& out, bool& complete) noexcept {
  const size_t n = fds_.size();
  const size_t bytes = GroupReadWords(n) * sizeof(uint64_t);
  ++read_syscalls_;
  const ssize_t got = read(fds_[0].get(), read_buf_.data(), bytes);
  // 0 bytes: a pinned group the PMU could not schedule (error state).
  complete =
      got == static_cast<ssize_t>(bytes) &&
      DecodeGroupRead(read_buf_.data(), n, ids_.data(), out.counts.data(),
                      &out.time_enabled, &out.time_running);
  out.used_read_syscall = true;
  return got;
}

// A pinned group whose leader has run all the time it was enabled takes
// the unrolled read for its size (pinned_page_read.h); it checks that at
// every snapshot and falls back to SnapshotGeneral when it stops holding.
void CounterGroup::ChooseSnapshotPath() {
  snapshot_path_.path = &CounterGroup::SnapshotGeneral;
  const size_t n = pages_.size();
  if (!all_rdpmc_ || !pinned_ || n == 0) return;
  uint64_t count = 0, enabled = 0, running = 0;
  if (!ReadPinnedLeader(page_ptrs_[0], count, enabled, running)) return;
  snapshot_path_.path =
      []<size_t... I>(size_t size, std::index_sequence<I...>) {
    constexpr SnapshotPath kPaths[] = {&CounterGroup::SnapshotPinned<I + 1>...};
    return kPaths[size - 1];
  }
  (n, std::make_index_sequence<kMaxGroupEvents>{});
}

template <int N>
bool CounterGroup::SnapshotPinned(CounterGroup& group,
                                  GroupSnapshot& out) noexcept {
  if (ReadPinnedGroupPages<N>(group.page_ptrs_.data(), out.counts.data(),
                              out.time_enabled, out.time_running)) {
    out.used_read_syscall = false;
    return true;
  }
  // Off the PMU, or enabled != running: times brought up to date, or read(2).
  return SnapshotGeneral(group, out);
}

bool CounterGroup::SnapshotGeneral(CounterGroup& group,
                                   GroupSnapshot& out) noexcept {
  const size_t n = group.pages_.size();  // 0 in a moved-from group
  // The user-space path, inlined here: page loads and counter reads only.
  if (group.all_rdpmc_ && n != 0 &&
      ReadGroupPages(group.page_ptrs_.data(), n, out.counts.data(),
                     out.time_enabled, out.time_running)) {
    out.used_read_syscall = false;
    return true;
  }
  // An event off the PMU now (index 0), or user reads not allowed.
  if (group.fds_.empty()) return false;
  bool complete = false;
  group.ReadGroup(out, complete);
  return complete;
}

// One indirect jump to the path ChooseSnapshotPath picked.
bool CounterGroup::Snapshot(GroupSnapshot& out) noexcept {
  return snapshot_path_.path(*this, out);
}

absl::Status CounterGroup::Health() {
  if (fds_.empty()) {
    return absl::FailedPreconditionError(
        "the counter group was moved from or closed; open a new one");
  }
  GroupSnapshot snapshot;
  bool complete = false;
  const ssize_t got = ReadGroup(snapshot, complete);
  const int err = errno;
  if (complete) return absl::OkStatus();
  if (got == 0) {
    std::vector<ResolvedEvent> events;
    for (const OpenedEvent& e : events_) events.push_back(e.event);
    return GroupErrorStateError(events, HostArch(),
                                GeneralPurposeCounterCount());
  }
  if (got < 0) {
    return absl::InternalError(absl::StrCat("read(2) of the group {",
                                            SpecList(events_),
                                            "}: ", std::strerror(err)));
  }
  return absl::InternalError(absl::StrCat(
      "read(2) of the group {", SpecList(events_), "} returned ", got,
      " bytes, nr = ", read_buf_[0], " and ids that do not match the ",
      events_.size(), " events opened"));
}

GroupDelta Delta(const GroupSnapshot& start, const GroupSnapshot& stop,
                 int size) {
  GroupDelta d;
  d.size = size;
  d.time_enabled = SaturatingSub(stop.time_enabled, start.time_enabled);
  d.time_running = SaturatingSub(stop.time_running, start.time_running);
  for (int i = 0; i < size && i < kMaxGroupEvents; ++i) {
    d.counts[i] = ScaleCount(SaturatingSub(stop.counts[i], start.counts[i]),
                             d.time_enabled, d.time_running);
  }
  return d;
}

}  // namespace pmubench::perf
