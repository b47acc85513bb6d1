#include "framework/perf/counting/user_read_refusal.h"

#include "absl/strings/str_cat.h"
#include "framework/perf/events/pmu.h"

namespace pmubench::perf {
namespace {

std::string PageState(const UserReadFacts& f) {
  return absl::StrCat("cap_user_rdpmc = ", f.cap_user_rdpmc,
                      ", index = ", f.index);
}

// arm64 (Documentation/arch/arm64/perf.rst, "User space access"): the event
// must set the PMU's rdpmc term and the sysctl must be 1; the kernel then
// fills index with the counter (32 for the cycle counter).
std::string Arm64Reason(const UserReadFacts& f) {
  if (!f.perf_user_access) {
    return absl::StrCat("this kernel has no ", kPerfUserAccessPath,
                        " (arm64 user-space counter reads need Linux 5.17 "
                        "or later)");
  }
  if (*f.perf_user_access == 0) {
    return absl::StrCat("user-space counter reads are off (",
                        kPerfUserAccessPath,
                        " = 0); enable them with `sysctl "
                        "kernel.perf_user_access=1`");
  }
  if (!f.user_read_term_set) {
    return absl::StrCat(
        "the event does not ask for user-space reads: PMU ",
        f.core_pmu.empty() ? std::string("(unknown)") : f.core_pmu,
        " has no format/rdpmc term, or the spec set rdpmc=0 (drop it)");
  }
  return absl::StrCat("the kernel did not grant a user-space read (",
                      PageState(f), ")");
}

std::string X86Reason(const UserReadFacts& f) {
  const std::string file =
      absl::StrCat(kDefaultSysfsRoot, "/",
                   f.core_pmu.empty() ? "cpu" : f.core_pmu, "/rdpmc");
  if (f.x86_rdpmc && *f.x86_rdpmc == 0) {
    return absl::StrCat("user-space rdpmc is off (", file,
                        " = 0); enable it with `echo 1 > ", file,
                        "` (or 2 for every process)");
  }
  return absl::StrCat("the kernel did not grant a user-space rdpmc (",
                      PageState(f), ")");
}

}  // namespace

std::string UserReadRefusalReason(const UserReadFacts& f) {
  const std::string head =
      absl::StrCat("'", f.spec, "' is read with read(2): ");
  if (!f.page_mapped) {
    return absl::StrCat(head,
                        "mmap of its perf_event_mmap_page failed, so user "
                        "space cannot read the counter");
  }
  switch (f.arch) {
    case Arch::kArm64:
      return head + Arm64Reason(f);
    case Arch::kX86_64:
      return head + X86Reason(f);
    case Arch::kOther:
      break;
  }
  return absl::StrCat(head,
                      "pmubench reads counters in user space only on x86-64 "
                      "and arm64 (",
                      PageState(f), ")");
}

}  // namespace pmubench::perf
