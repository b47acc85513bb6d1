#include "framework/runner/batch_meter.h"

#include <string>

#include "framework/perf/counter_math.h"
#include "framework/runner/event_set.h"

namespace pmubench::internal {

void BatchMeter::Accumulate() noexcept {
  const int size = group_.group.size();
  const perf::GroupDelta delta = perf::Delta(start_, stop_, size);
  for (int i = 0; i < size; ++i) totals_[i] += delta.counts[i];
  time_enabled_ += delta.time_enabled;
  time_running_ += delta.time_running;
  ++segments_;
}

double BatchMeter::CorrectedTotal(int index) const {
  // Every segment paid one empty start/stop pair.
  return perf::SubtractOverhead(totals_[index],
                                group_.overhead[index] * segments_);
}

double BatchMeter::ReportedTotal(int index) const {
  // A sysfs alias may carry a .scale (events/<alias>.scale: Joules per count
  // for energy events, say); the JSON holds the value in the alias's .unit.
  return CorrectedTotal(index) * group_.set->events[index].scale;
}

void BatchMeter::Report(benchmark::State& gb_state) {
  if (!ok_) {
    const absl::Status health = group_.group.Health();
    const std::string message =
        "pmubench: counter group failed during the batch: " +
        (health.ok() ? std::string("read returned no data")
                     : std::string(health.message()));
    gb_state.SkipWithError(message.c_str());
    return;
  }
  if (gb_state.error_occurred() || segments_ == 0) return;
  const EventSet& set = *group_.set;
  for (int i = 0; i < set.size(); ++i) {
    gb_state.counters[set.events[i].spec] = benchmark::Counter(
        ReportedTotal(i), benchmark::Counter::kAvgIterations);
  }
  for (const DerivedMetric& metric : set.derived) {
    const double denominator = CorrectedTotal(metric.denominator);
    const double ratio =
        denominator > 0 ? CorrectedTotal(metric.numerator) / denominator : 0;
    gb_state.counters[metric.name] =
        benchmark::Counter(ratio, benchmark::Counter::kAvgThreads);
  }
  gb_state.counters[kRunningFractionName] =
      benchmark::Counter(perf::RunningFraction(time_enabled_, time_running_),
                         benchmark::Counter::kAvgThreads);
}

}  // namespace pmubench::internal
