#include "framework/runner/measure/layout_check.h"

#include <sys/mman.h>
#include <unistd.h>

#include <iostream>
#include <mutex>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/runner/measure/fresh_heap.h"
#include "framework/runner/measure/simulated_meter.h"

namespace pmubench::internal {
namespace {

// Regions mapped (inaccessible) while the second run lasts, so that the
// mappings it makes (its arena, blocks over the mmap threshold) land at
// other addresses than the first run's: one page and 17 pages, which take
// the place of small holes, and 64 MiB and 5 pages, the size of an arena
// heap (malloc/arena.c: HEAP_MAX_SIZE) and a few pages more.
class ShiftedLayout {
 public:
  ShiftedLayout() {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (size_t bytes : {page, 17 * page, (64 << 20) + 5 * page}) {
      void* at = mmap(nullptr, bytes, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (at != MAP_FAILED) regions_.push_back({at, bytes});
    }
  }
  ~ShiftedLayout() {
    for (const auto& [at, bytes] : regions_) munmap(at, bytes);
  }
  ShiftedLayout(const ShiftedLayout&) = delete;
  ShiftedLayout& operator=(const ShiftedLayout&) = delete;

 private:
  std::vector<std::pair<void*, size_t>> regions_;
};

void Mark(benchmark::State& gb_state, const std::string& case_name,
          double first, double second) {
  gb_state.counters[kLayoutSensitiveName] = benchmark::Counter(1);
  static std::mutex mu;
  static auto* said = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  if (said->insert(case_name).second) {
    std::cerr << LayoutSensitiveNotice(case_name, first, second) << "\n";
  }
}

}  // namespace

std::string LayoutSensitiveNotice(const std::string& case_name, double first,
                                  double second) {
  return absl::StrCat(
      "pmubench: ", case_name, " counted ", first,
      " instructions per iteration, and ", second,
      " when its batch ran again at other addresses: its count follows "
      "where its data lands (run field ",
      kLayoutSensitiveName,
      "; compare and history judge it as noisy). "
      "docs/ci_without_pmu.md#counts-that-follow-addresses");
}

void LayoutCheck::Run(benchmark::State& gb_state, const SimulationSession& sim,
                      const std::function<void(State&)>& body,
                      const std::string& case_name) {
  if (gb_state.error_occurred()) return;
  const ShiftedLayout shifted;
  SimulatedMeter meter(sim, gb_state.max_iterations);
  int64_t iterations_per_step = 1;
  benchmark::UserCounters untimed_counters;
  RunOnFreshHeap(
      [&] {
        State state(gb_state, meter, untimed_counters, State::Untimed{});
        body(state);
        state.FinishAfterBody(case_name);
        iterations_per_step = state.batch_iterations_ / state.sim_steps_;
      },
      sim.simulates_misses);
  absl::StatusOr<std::vector<double>> again =
      meter.Values(gb_state.threads(), iterations_per_step);
  if (!again.ok()) {
    const std::string message =
        absl::StrCat("pmubench: the layout check's second run of ", case_name,
                     " could not be read: ", again.status().message());
    gb_state.SkipWithError(message.c_str());
    return;
  }
  for (size_t i = 0; i < sim.set.events.size(); ++i) {
    if (sim.set.events[i].columns != std::vector<std::string>{"Ir"}) continue;
    const auto first = gb_state.counters.find(sim.set.events[i].field());
    if (first == gb_state.counters.end()) continue;
    if (first->second.value != (*again)[i]) {
      Mark(gb_state, case_name, first->second.value, (*again)[i]);
    }
  }
}

}  // namespace pmubench::internal
