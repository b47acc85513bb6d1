// The layout of one read(2) of a perf event group leader opened with
// read_format = GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING
// (perf_event_open(2), "Reading results"):
//
//   u64 nr; u64 time_enabled; u64 time_running; { u64 value; u64 id; }[nr]
//
// Values are placed by their PERF_FORMAT_ID id (the kernel's
// PERF_EVENT_IOC_ID of each fd), never by position. Pure and allocation-free:
// it runs on the read(2) path of every snapshot.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_GROUP_READ_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_GROUP_READ_H_

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace pmubench::perf {

inline constexpr uint64_t kGroupReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
    PERF_FORMAT_TOTAL_TIME_RUNNING;

// Words a read of a group of `n` events returns.
constexpr size_t GroupReadWords(size_t n) { return 3 + 2 * n; }

// Decodes `words` (a whole read of a group of `n` events whose ids are
// ids[0..n)) into counts[j] for the event with id ids[j] and the leader's
// times. False when nr is not n or a record's id is not one of `ids`.
inline bool DecodeGroupRead(const uint64_t* words, size_t n,
                            const uint64_t* ids, uint64_t* counts,
                            uint64_t* time_enabled, uint64_t* time_running) {
  if (words[0] != n) return false;
  for (size_t r = 0; r < n; ++r) {
    const uint64_t value = words[3 + 2 * r];
    const uint64_t id = words[4 + 2 * r];
    size_t j = r;  // the kernel's order is the open order: try it first
    if (ids[j] != id) {
      for (j = 0; j < n && ids[j] != id; ++j) {
      }
      if (j == n) return false;
    }
    counts[j] = value;
  }
  *time_enabled = words[1];
  *time_running = words[2];
  return true;
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_GROUP_READ_H_
