// Why a hardware event is read with read(2) instead of in user space, and
// the knob that allows user-space reads on the architecture this runs on:
// arm64's sysctl kernel.perf_user_access with the PMU's rdpmc format term,
// x86's /sys/bus/event_source/devices/cpu/rdpmc.
//
//   UserReadFacts facts = ...;  // from the event, the machine and its page
//   std::string why = UserReadRefusalReason(facts);
//
// Pure: the facts are gathered by the caller (CounterGroup::Open), so every
// architecture's text is tested on any machine.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_USER_READ_REFUSAL_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_USER_READ_REFUSAL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "framework/perf/system/machine.h"

namespace pmubench::perf {

struct UserReadFacts {
  Arch arch = HostArch();
  std::string spec;                 // the event as the user wrote it
  std::string core_pmu;             // the core PMU counting it; "" when unknown
  bool page_mapped = true;          // mmap of its perf_event_mmap_page worked
  bool user_read_term_set = false;  // arm64: resolution set the rdpmc term
  std::optional<int> perf_user_access;  // arm64 sysctl, nullopt when absent
  std::optional<int> x86_rdpmc;         // <core pmu>/rdpmc, nullopt if absent
  // What the kernel wrote into the event's page (linux/perf_event.h).
  uint32_t cap_user_rdpmc = 0;
  uint32_t index = 0;
};

// One sentence: which event is read with read(2), why, and how to allow
// user-space reads ("`sysctl kernel.perf_user_access=1`" on arm64,
// "`echo 1 > /sys/bus/event_source/devices/cpu/rdpmc`" on x86).
std::string UserReadRefusalReason(const UserReadFacts& facts);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_USER_READ_REFUSAL_H_
