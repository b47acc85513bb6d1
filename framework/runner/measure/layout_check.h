// --pmubench_layout_check: under callgrind, does a case's instruction count
// follow the addresses its data got?
//
// Why: some code does work that depends on addresses. Abseil's hash tables
// mix a per-table salt taken from the address of their control bytes
// (absl/container/internal/raw_hash_set.h in libabsl-dev 20220623:
// PerTableSalt, ctrl >> 12) into every probe, and hash pointers through a
// multiply, so a table of pointers or a table whose backing store malloc
// maps (over the 128 KiB threshold, mallopt(3) M_MMAP_THRESHOLD) probes
// differently wherever it lands; a std::unordered_set of blocks that malloc
// maps collides differently too. Each batch's fresh heap (fresh_heap.h)
// makes where small blocks sit relative to their arena fixed, but not where
// the arena or a mapped block is: that follows what was mapped before (the
// cases that ran before, valgrind's own mappings). Such a count is the same
// in two runs of the same command and moves when the case runs alone.
//
// The check runs each batch a second time, untimed, on another fresh heap,
// after the address space was shifted (a few regions mapped and kept until
// the second run is done), and compares its instruction counts with the
// row's. A row whose count differs gets the run field
// pmubench_layout_sensitive (how many of the row's threads saw it), and
// stderr says so once per case: compare.py and history.py then judge its
// counts as noisy, never as exact (scripts/pmubench/verdicts/metrics.py).
// A row the check does not mark may still be sensitive to a shift it did
// not make; each batch costs twice its time.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_LAYOUT_CHECK_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_LAYOUT_CHECK_H_

#include <benchmark/benchmark.h>

#include <functional>
#include <string>

#include "framework/runner/measure/simulation_session.h"
#include "framework/runner/measure/state.h"

namespace pmubench::internal {

// The run field of a row whose instruction count moved with the layout.
inline constexpr char kLayoutSensitiveName[] = "pmubench_layout_sensitive";

// The line said once per case on stderr; `first` and `second` are the
// instructions per iteration of the two runs.
std::string LayoutSensitiveNotice(const std::string& case_name, double first,
                                  double second);

class LayoutCheck {
 public:
  // After Report wrote the batch's counts into `gb_state`: runs `body` (the
  // case's function) again as described above, and marks the row when an
  // instruction count differs. A second run that fails to read its dumps
  // fails the run with the reason.
  static void Run(benchmark::State& gb_state, const SimulationSession& sim,
                  const std::function<void(State&)>& body,
                  const std::string& case_name);
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_LAYOUT_CHECK_H_
