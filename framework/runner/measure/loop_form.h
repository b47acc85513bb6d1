// The three loop shapes a case body can drive pmubench::State with. Each has
// its own fixed cost per batch (state_overhead.h), so State tells the meter
// which one runs. Apart so that state.h, which every case file includes,
// needs no more than this of the meter.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_LOOP_FORM_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_LOOP_FORM_H_

#include <cstdint>

namespace pmubench::internal {

enum class LoopForm : uint8_t { kRangeFor, kKeepRunning, kKeepRunningBatch };
inline constexpr int kLoopForms = 3;

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_LOOP_FORM_H_
