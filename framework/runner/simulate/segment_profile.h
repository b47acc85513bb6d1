// The per-iteration profile of a simulated batch: the self costs of the
// steps a row counts, per function and source line.
//
// A simulated row is (C(2n) - C(n) - pauses) / iterations
// (measure/simulated_meter.h), so its profile is the same difference taken
// per (function, file, line): the 2n-step segment's self costs less the
// n-step segment's. What runs the same in both (the loop's entry and exit,
// the dump request) cancels; the deltas add up to C(2n) - C(n) exactly, and
// with the pause entry to the row's count times `iterations`.
//
//   SegmentProfile p = SubtractSegments(dumps[3].self_costs,
//                                       dumps[2].self_costs, n * k, pauses);
//   double per_iteration = p.costs[0].delta / double(p.iterations);
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SEGMENT_PROFILE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SEGMENT_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "framework/runner/simulate/callgrind.h"

namespace pmubench::internal {

// The name of the entry that takes the calibrated ResumeTiming..PauseTiming
// pairs off (a negative delta), so the deltas still add up to the row.
inline constexpr char kPausePairsSymbol[] =
    "[ResumeTiming..PauseTiming pairs, calibrated]";

struct SegmentDelta {
  std::string function;  // callgrind's fn=: inlined code counts in its caller
  std::string file;      // fl=/fi=/fe=: inlined code's own source file
  int line = 0;          // 0: no line information
  int64_t delta = 0;     // longer segment's self cost less the shorter's
};

struct SegmentProfile {
  // Nonzero deltas, the largest in magnitude first, then by function,
  // file and line.
  std::vector<SegmentDelta> costs;
  // What each delta is divided by to be per iteration (the row's divisor).
  int64_t iterations = 1;
  // The sum of every delta: the row's count times `iterations`.
  int64_t total = 0;
};

// `pause_cost` is what the row subtracts for its extra pause pairs (0 when
// none); it becomes a kPausePairsSymbol entry of -pause_cost.
SegmentProfile SubtractSegments(
    const std::vector<CallgrindDump::SelfCost>& longer,
    const std::vector<CallgrindDump::SelfCost>& shorter, int64_t iterations,
    int64_t pause_cost);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_SEGMENT_PROFILE_H_
