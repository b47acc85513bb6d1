#include "framework/runner/profile/profile_slowdown.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace pmubench {
namespace {

// The period at which the models of the header reach
// kProfileSlowdownTarget.
double PeriodForTarget(const ProfiledBatchTimes& t, double ratio,
                       uint64_t period, bool clock_event) {
  const double overhead = kProfileSlowdownTarget - 1;
  const double by_count = static_cast<double>(period) * (ratio - 1) / overhead;
  if (!clock_event || t.samples == 0 || t.iterations <= 0) return by_count;
  const double batch_ns = 1e9 * t.measured_seconds_per_iteration *
                          static_cast<double>(t.iterations);
  const double cost_ns =
      (ratio - 1) * batch_ns / static_cast<double>(t.samples);
  return cost_ns / overhead;
}

}  // namespace

uint64_t RoundUpTo125(double period) {
  // 10^19 exceeds uint64_t; 5 x 10^18 is the largest 1-2-5 value it holds.
  constexpr uint64_t kLargest = 5'000'000'000'000'000'000ull;
  if (!(period <= static_cast<double>(kLargest))) return kLargest;
  for (uint64_t decade = 1;; decade *= 10) {
    for (uint64_t step : {1, 2, 5}) {
      if (static_cast<double>(step * decade) >= period) return step * decade;
    }
  }
}

ProfileSlowdown CompareProfiledBatch(const ProfiledBatchTimes& times,
                                     uint64_t period, bool clock_event) {
  ProfileSlowdown s;
  s.times = times;
  s.period = period;
  if (!(times.measured_seconds_per_iteration > 0) ||
      !(times.profiled_seconds_per_iteration > 0) || period == 0) {
    return s;  // nothing to compare: ratio stays 0
  }
  s.ratio = times.profiled_seconds_per_iteration /
            times.measured_seconds_per_iteration;
  s.warn = s.ratio > kProfileSlowdownWarnRatio;
  if (s.warn) {
    // Never below the period that was too small.
    s.suggested_period = RoundUpTo125(
        std::max(static_cast<double>(period) + 1,
                 PeriodForTarget(times, s.ratio, period, clock_event)));
  }
  return s;
}

std::string SlowdownWarning(const ProfileSlowdown& slowdown) {
  return absl::StrFormat(
      "the profiled batch ran %.1fx as long as the measured one: sampling "
      "interrupts dominate; try @%d",
      slowdown.ratio, slowdown.suggested_period);
}

}  // namespace pmubench
