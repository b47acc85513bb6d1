#include "framework/perf/counter_group.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/perf/counter_math.h"
#include "framework/perf/mmap_reader.h"
#include "framework/perf/machine.h"
#include "framework/perf/perf_errors.h"
#include "framework/perf/user_read.h"

namespace pmubench::perf {
namespace {

constexpr uint64_t kReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                 PERF_FORMAT_TOTAL_TIME_ENABLED |
                                 PERF_FORMAT_TOTAL_TIME_RUNNING;

// glibc has no wrapper (perf_event_open(2), NOTES).
int PerfEventOpen(perf_event_attr* attr, int group_fd) {
  return static_cast<int>(syscall(SYS_perf_event_open, attr, /*pid=*/0,
                                  /*cpu=*/-1, group_fd, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr MakeAttr(const ResolvedEvent& event,
                         const GroupOptions& options, bool leader) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = event.type;
  attr.config = event.config;
  attr.config1 = event.config1;
  attr.config2 = event.config2;
  attr.read_format = kReadFormat;
  // Members follow the leader: only the leader is disabled at open and pinned.
  attr.disabled = leader ? 1 : 0;
  attr.pinned = leader && options.pinned ? 1 : 0;
  if (event.modifiers.explicit_) {
    attr.exclude_user = event.modifiers.user ? 0 : 1;
    attr.exclude_kernel = event.modifiers.kernel ? 0 : 1;
  } else {
    attr.exclude_kernel = options.exclude_kernel ? 1 : 0;
  }
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
      kDefaultSysfsRoot, "/", e.event.core_pmu.empty() ? "cpu" : e.event.core_pmu,
      "/rdpmc"));
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

const char* ReadMethodName(ReadMethod m) {
  return m == ReadMethod::kRdpmc ? "rdpmc" : "read";
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
  const int group_size = static_cast<int>(events.size());
  CounterGroup group;
  group.options_ = options;
  for (int i = 0; i < group_size; ++i) {
    OpenedEvent opened;
    opened.event = events[i];
    opened.attr = MakeAttr(events[i], options, /*leader=*/i == 0);
    const int leader_fd = i == 0 ? -1 : group.fds_[0];
    int fd = PerfEventOpen(&opened.attr, leader_fd);
    int err = fd < 0 ? errno : 0;
    if (fd < 0 && err == EINVAL && HasExcludeBits(opened.attr)) {
      // PMUs with PERF_PMU_CAP_NO_EXCLUDE (msr, many uncore PMUs) reject any
      // exclude_* bit with EINVAL (kernel/events/core.c, perf_try_init_event).
      perf_event_attr retry = opened.attr;
      ClearExcludeBits(retry);
      fd = PerfEventOpen(&retry, leader_fd);
      if (fd >= 0) {
        opened.attr = retry;
        opened.exclude_bits_cleared = true;
      } else if (errno != EINVAL) {
        err = errno;  // e.g. EACCES: counting the kernel is not allowed
      }
    }
    if (fd < 0) return PerfOpenError(err, events[i], i, group_size);
    group.fds_.push_back(fd);
    group.events_.push_back(std::move(opened));
  }

  // One page per event: the perf_event_mmap_page header with index, offset
  // and the seqlock. A failed mmap only costs the rdpmc path.
  const long page_size = sysconf(_SC_PAGESIZE);
  for (int fd : group.fds_) {
    void* page = mmap(nullptr, static_cast<size_t>(page_size), PROT_READ,
                      MAP_SHARED, fd, 0);
    group.pages_.push_back(page == MAP_FAILED
                               ? nullptr
                               : static_cast<perf_event_mmap_page*>(page));
  }

  if (ioctl(group.fds_[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
    const int err = errno;
    return absl::InternalError(absl::StrCat(
        "ioctl(PERF_EVENT_IOC_ENABLE) on the group ", SpecList(group.events_),
        ": ", std::strerror(err)));
  }

  group.ChooseReadMethod(options.use_rdpmc);

  absl::Status health = group.Health();
  if (!health.ok()) return health;
  return group;
}

// After the enable the kernel has scheduled the pinned group and filled each
// page's cap_user_rdpmc and index (arch_perf_update_userpage). The group is
// read in user space only when every member's page allows it.
void CounterGroup::ChooseReadMethod(bool use_rdpmc) {
  const size_t n = events_.size();
  std::vector<bool> readable(n, false);
  int first_unreadable = -1;
  for (size_t i = 0; i < n; ++i) {
    readable[i] = pages_[i] != nullptr && ReadMmapPage(pages_[i]).has_value();
    if (!readable[i] && first_unreadable < 0) first_unreadable = static_cast<int>(i);
  }
  all_rdpmc_ = use_rdpmc && first_unreadable < 0;
  for (size_t i = 0; i < n; ++i) {
    OpenedEvent& e = events_[i];
    e.read_method = all_rdpmc_ ? ReadMethod::kRdpmc : ReadMethod::kRead;
    if (all_rdpmc_ || !use_rdpmc) continue;
    if (readable[i]) {
      e.read_fallback_reason = absl::StrCat(
          "'", e.event.spec, "' is read with read(2): its group also holds '",
          events_[first_unreadable].event.spec,
          "', which user space cannot read; count it in a group of its own");
    } else if (e.event.needs_hardware_pmu) {
      e.read_fallback_reason = UserReadRefusalReason(FactsFor(e, pages_[i]));
    }
  }
}

CounterGroup::CounterGroup(CounterGroup&& other) noexcept
    : options_(other.options_),
      events_(std::move(other.events_)),
      fds_(std::exchange(other.fds_, {})),
      pages_(std::exchange(other.pages_, {})),
      all_rdpmc_(std::exchange(other.all_rdpmc_, false)),
      read_syscalls_(other.read_syscalls_) {}

CounterGroup& CounterGroup::operator=(CounterGroup&& other) noexcept {
  if (this != &other) {
    Close();
    options_ = other.options_;
    events_ = std::move(other.events_);
    fds_ = std::exchange(other.fds_, {});
    pages_ = std::exchange(other.pages_, {});
    all_rdpmc_ = std::exchange(other.all_rdpmc_, false);
    read_syscalls_ = other.read_syscalls_;
  }
  return *this;
}

CounterGroup::~CounterGroup() { Close(); }

void CounterGroup::Close() noexcept {
  const size_t page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (perf_event_mmap_page* page : pages_) {
    if (page != nullptr) munmap(page, page_size);
  }
  pages_.clear();
  // Members before the leader, so no member is ever orphaned mid-close.
  for (auto it = fds_.rbegin(); it != fds_.rend(); ++it) close(*it);
  fds_.clear();
  all_rdpmc_ = false;
}

bool CounterGroup::ReadSyscall(GroupSnapshot& out) noexcept {
  // PERF_FORMAT_GROUP layout (perf_event_open(2), "Reading results"):
  //   u64 nr; u64 time_enabled; u64 time_running; { u64 value; u64 id; }[nr]
  const size_t n = fds_.size();
  const size_t bytes = (3 + 2 * n) * sizeof(uint64_t);
  ++read_syscalls_;
  const ssize_t got = read(fds_[0], read_buf_.data(), bytes);
  // 0 bytes: a pinned group the PMU could not schedule (error state).
  if (got != static_cast<ssize_t>(bytes) || read_buf_[0] != n) return false;
  out.time_enabled = read_buf_[1];
  out.time_running = read_buf_[2];
  for (size_t i = 0; i < n; ++i) out.counts[i] = read_buf_[3 + 2 * i];
  out.used_read_syscall = true;
  return true;
}

bool CounterGroup::Snapshot(GroupSnapshot& out) noexcept {
  if (fds_.empty()) return false;
  if (all_rdpmc_) {
    const size_t n = pages_.size();
    for (size_t i = 0; i < n; ++i) {
      const std::optional<MmapReading> r = ReadMmapPage(pages_[i]);
      // index 0: this event is off the PMU now; read the whole group instead.
      if (!r) return ReadSyscall(out);
      out.counts[i] = r->count;
      if (i == 0) {
        out.time_enabled = r->time_enabled;
        out.time_running = r->time_running;
      }
    }
    out.used_read_syscall = false;
    return true;
  }
  return ReadSyscall(out);
}

absl::Status CounterGroup::Health() {
  if (fds_.empty()) {
    return absl::FailedPreconditionError(
        "the counter group was moved from or closed; open a new one");
  }
  const size_t n = fds_.size();
  const size_t bytes = (3 + 2 * n) * sizeof(uint64_t);
  ++read_syscalls_;
  const ssize_t got = read(fds_[0], read_buf_.data(), bytes);
  const int err = errno;
  if (got == static_cast<ssize_t>(bytes) && read_buf_[0] == n) {
    return absl::OkStatus();
  }
  if (got == 0) {
    std::optional<int> counters = GeneralPurposeCounterCount();
    return absl::FailedPreconditionError(absl::StrCat(
        "pinned group {", SpecList(events_),
        "} is in error state: the PMU could not schedule its ", events_.size(),
        " events at once (the core PMU has ",
        counters ? absl::StrCat(*counters, " general-purpose counters")
                 : std::string("an unknown number of counters"),
        "; other pinned groups or the NMI watchdog may hold some); drop "
        "events, e.g. the last one \"",
        events_.back().event.spec,
        "\", or free counters with `sysctl kernel.nmi_watchdog=0`"));
  }
  if (got < 0) {
    return absl::InternalError(absl::StrCat("read(2) of the group {",
                                            SpecList(events_),
                                            "}: ", std::strerror(err)));
  }
  return absl::InternalError(absl::StrCat(
      "read(2) of the group {", SpecList(events_), "} returned ", got,
      " bytes and nr = ", read_buf_[0], ", expected ", events_.size(),
      " events"));
}

GroupDelta Delta(const GroupSnapshot& start, const GroupSnapshot& stop,
                 int size) {
  GroupDelta d;
  d.size = size;
  d.time_enabled = SaturatingSub(stop.time_enabled, start.time_enabled);
  d.time_running = SaturatingSub(stop.time_running, start.time_running);
  d.running_fraction = RunningFraction(d.time_enabled, d.time_running);
  for (int i = 0; i < size && i < kMaxGroupEvents; ++i) {
    d.counts[i] = ScaleCount(SaturatingSub(stop.counts[i], start.counts[i]),
                             d.time_enabled, d.time_running);
  }
  return d;
}

}  // namespace pmubench::perf
