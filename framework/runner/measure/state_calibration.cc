#include "framework/runner/measure/state_calibration.h"

#include <algorithm>
#include <limits>

#include "framework/runner/measure/batch_meter.h"
#include "framework/runner/measure/state.h"

namespace pmubench {
namespace internal {
namespace {

// The loops of a case body with nothing in them. noipa: compiled as a case
// body is, for a State whose iteration count the compiler cannot know.
// ClobberMemory keeps the compiler from deleting an empty loop (a case's
// body has work in it, so its loop is kept too).
[[gnu::noipa]] void EmptyRangeFor(State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}

[[gnu::noipa]] void EmptyKeepRunning(State& state) {
  while (state.KeepRunning()) benchmark::ClobberMemory();
}

[[gnu::noipa]] void EmptyKeepRunningBatch(State& state) {
  while (state.KeepRunningBatch(1)) benchmark::ClobberMemory();
}

}  // namespace

class StateCalibration {
 public:
  // One empty batch of `iterations` driven by `form`, measured by `meter`.
  static void RunEmptyBatch(BatchMeter& meter, LoopForm form,
                            benchmark::IterationCount iterations) {
    benchmark::UserCounters counters;
    State state(&meter, iterations, counters);
    switch (form) {
      case LoopForm::kRangeFor:
        EmptyRangeFor(state);
        break;
      case LoopForm::kKeepRunning:
        EmptyKeepRunning(state);
        break;
      case LoopForm::kKeepRunningBatch:
        EmptyKeepRunningBatch(state);
        break;
    }
  }
};

absl::Status CalibrateBatchOverhead(ThreadGroup& group, LoopForm form) {
  const int size = group.group.size();
  EventCounts minimum[2];
  for (EventCounts& m : minimum) {
    m.fill(std::numeric_limits<double>::infinity());
  }
  for (int round = 0; round < kCalibrationRounds; ++round) {
    for (int n = 1; n <= 2; ++n) {
      BatchMeter meter(group);
      StateCalibration::RunEmptyBatch(meter, form, n);
      if (!meter.ok() || meter.segments() != 1) {
        const absl::Status health = group.group.Health();
        return health.ok() ? absl::InternalError(
                                 "counter group read returned no data while "
                                 "calibrating its overhead")
                           : health;
      }
      for (int i = 0; i < size; ++i) {
        minimum[n - 1][i] = std::min(minimum[n - 1][i], meter.RawTotal(i));
      }
    }
  }
  EventCounts intercept{};
  for (int i = 0; i < size; ++i) {
    intercept[i] = std::max(0.0, 2 * minimum[0][i] - minimum[1][i]);
  }
  group.state_overhead.batch[static_cast<int>(form)] = intercept;
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace pmubench
