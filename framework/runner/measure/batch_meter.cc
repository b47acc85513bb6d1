#include "framework/runner/measure/batch_meter.h"

#include <algorithm>
#include <string>

#include "framework/perf/counting/counter_math.h"
#include "framework/runner/measure/state_calibration.h"
#include "framework/runner/plan/event_set.h"

namespace pmubench::internal {

void BatchMeter::Accumulate(SegmentEnd end) noexcept {
  if (next_ != nullptr) next_->Accumulate(end);
  const int size = group_.group.size();
  const perf::GroupDelta delta = perf::Delta(start_, stop_, size);
  if (sampling_pause_pair_) {
    sampling_pause_pair_ = false;
    StateOverhead& overhead = group_.state_overhead;
    for (int i = 0; i < size; ++i) {
      overhead.pause_pair[i] =
          overhead.pause_pair_samples == 0
              ? delta.counts[i]
              : std::min(overhead.pause_pair[i], delta.counts[i]);
    }
    ++overhead.pause_pair_samples;
    return;
  }
  for (int i = 0; i < size; ++i) totals_[i] += delta.counts[i];
  time_enabled_ += delta.time_enabled;
  time_running_ += delta.time_running;
  ++segments_;
  if (end == SegmentEnd::kPause) ++pauses_;
}

double BatchMeter::CorrectedTotal(int index) const {
  const StateOverhead& overhead = group_.state_overhead;
  const std::optional<EventCounts>& batch =
      overhead.batch[static_cast<int>(form_)];
  // A batch of n segments was paused n - 1 times (or n, when it ended
  // paused): one pause pair each, plus the loop's own start and finish.
  return perf::SubtractOverhead(totals_[index],
                                (batch.has_value() ? (*batch)[index] : 0.0) +
                                    pauses_ * overhead.pause_pair[index]);
}

double BatchMeter::ReportedTotal(int index) const {
  // A sysfs alias may carry a .scale (events/<alias>.scale: Joules per count
  // for energy events, say); the JSON holds the value in the alias's .unit.
  return CorrectedTotal(index) * group_.set->events[index].scale;
}

std::optional<BatchTotals::Totals> BatchTotals::Arrive(int threads,
                                                       const Totals& totals) {
  std::lock_guard<std::mutex> lock(mu_);
  if (arrived_ == 0) sums_.fill(0);
  for (size_t i = 0; i < totals.size(); ++i) sums_[i] += totals[i];
  if (++arrived_ < threads) return std::nullopt;
  arrived_ = 0;
  return sums_;
}

void BatchMeter::Report(benchmark::State& gb_state, BatchTotals& shared) {
  if (ok_ && segments_ > 0 &&
      !group_.state_overhead.batch[static_cast<int>(form_)].has_value()) {
    // The first batch of this loop form on the group: the timer has
    // stopped, so the calibration is not timed.
    const absl::Status calibrated = CalibrateBatchOverhead(group_, form_);
    ok_ = calibrated.ok();
  }
  const bool counted = ok_ && !gb_state.error_occurred() && segments_ > 0;
  BatchTotals::Totals corrected{};
  for (int i = 0; counted && i < group_.group.size(); ++i) {
    corrected[i] = CorrectedTotal(i);
  }
  const std::optional<BatchTotals::Totals> sums =
      shared.Arrive(gb_state.threads(), corrected);
  if (!ok_) {
    const absl::Status health = group_.group.Health();
    const std::string message =
        "pmubench: counter group failed during the batch: " +
        (health.ok() ? std::string("read returned no data")
                     : std::string(health.message()));
    gb_state.SkipWithError(message.c_str());
    return;
  }
  if (!counted) return;
  const EventSet& set = *group_.set;
  for (int i = 0; i < set.size(); ++i) {
    gb_state.counters[set.events[i].spec] = benchmark::Counter(
        ReportedTotal(i), benchmark::Counter::kAvgIterations);
  }
  for (const DerivedMetric& metric : set.derived) {
    double ratio = 0;
    if (sums.has_value() && (*sums)[metric.denominator] > 0) {
      ratio = (*sums)[metric.numerator] / (*sums)[metric.denominator];
    }
    gb_state.counters[metric.name] = benchmark::Counter(ratio);
  }
  gb_state.counters[kRunningFractionName] =
      benchmark::Counter(perf::RunningFraction(time_enabled_, time_running_),
                         benchmark::Counter::kAvgThreads);
}

}  // namespace pmubench::internal
