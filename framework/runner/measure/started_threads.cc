#include "framework/runner/measure/started_threads.h"

#include <iostream>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"

namespace pmubench::internal {

std::string ThreadsNotCountedNotice(const std::string& case_name) {
  return absl::StrCat(
      "pmubench: ", case_name,
      " ran threads it started itself: their work is not in its counts "
      "(run field ",
      kThreadsNotCountedName,
      "); count work on the loop's thread, or with ->Threads(N) "
      "(docs/writing_cases.md#threads-the-case-starts)");
}

void MarkThreadsNotCounted(benchmark::State& gb_state,
                           const std::string& case_name) {
  // Summed over the case threads (Google Benchmark's default for counters).
  gb_state.counters[kThreadsNotCountedName] = benchmark::Counter(1);
  static std::mutex mu;
  static auto* said = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  if (said->insert(case_name).second) {
    std::cerr << ThreadsNotCountedNotice(case_name) << "\n";
  }
}

}  // namespace pmubench::internal
