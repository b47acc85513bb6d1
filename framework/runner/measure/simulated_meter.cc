#include "framework/runner/measure/simulated_meter.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/runner/measure/state.h"

namespace pmubench::internal {
namespace {

std::string NextLabel() {
  static std::atomic<uint64_t> serial{0};
  return absl::StrCat("pmubench-", getpid(), "-",
                      serial.fetch_add(1, std::memory_order_relaxed));
}

// The four segment dumps of a batch, checked.
absl::StatusOr<std::vector<CallgrindDump>> SegmentDumps(
    const SimulationSession& session, const std::string& label, int threads) {
  absl::StatusOr<std::vector<CallgrindDump>> dumps =
      session.callgrind->TakeDumps(label);
  if (!dumps.ok()) return dumps.status();
  if (dumps->size() != 4) {
    return absl::NotFoundError(absl::StrCat(
        "found ", dumps->size(), " of the batch's 4 callgrind dumps (", label,
        ") next to ", session.callgrind->base()));
  }
  if (threads > 1 && dumps->front().thread == 0) {
    return absl::FailedPreconditionError(
        "a multi-threaded case needs callgrind's --separate-threads=yes "
        "(each thread's costs dumped apart): start valgrind with it, or use "
        "--pmubench_simulate");
  }
  return dumps;
}

}  // namespace

SimulatedSegments SegmentsFor(int64_t n, int64_t gb_max_iterations) {
  n = std::max<int64_t>(1, n);
  SimulatedSegments s;
  s.steps = {std::max(n, gb_max_iterations - 4 * n), n, n, 2 * n};
  return s;
}

SimulatedMeter::SimulatedMeter(const SimulationSession& session,
                               int64_t gb_max_iterations)
    : session_(&session),
      segments_(SegmentsFor(session.iterations, gb_max_iterations)),
      label_(NextLabel()) {}

void SimulatedMeter::Report(benchmark::State& gb_state,
                            int64_t iterations_per_step) {
  if (gb_state.error_occurred()) {
    // Left early: whatever the loop dumped is of no use.
    (void)session_->callgrind->TakeDumps(label_);
    return;
  }
  absl::StatusOr<std::vector<CallgrindDump>> dumps =
      SegmentDumps(*session_, label_, gb_state.threads());
  if (!dumps.ok()) {
    const std::string message = absl::StrCat(
        "pmubench: callgrind's counts of this batch could not be read: ",
        dumps.status().message());
    gb_state.SkipWithError(message.c_str());
    return;
  }
  const SimulatedEventSet& set = session_->set;
  const int extra_pauses = pauses_[3] - pauses_[2];
  double instruction_pauses = 0;
  std::vector<double> values(set.events.size());
  for (size_t i = 0; i < set.events.size(); ++i) {
    values[i] = PerIteration(i, *dumps, iterations_per_step);
    if (set.events[i].columns == std::vector<std::string>{"Ir"}) {
      instruction_pauses = session_->pause_pair[i] * extra_pauses;
    }
    gb_state.counters[set.events[i].field()] =
        benchmark::Counter(values[i], benchmark::Counter::kAvgThreads);
  }
  for (const SimulatedRatio& r : set.ratios) {
    const double ratio = values[r.denominator] > 0
                             ? values[r.numerator] / values[r.denominator]
                             : 0.0;
    gb_state.counters[r.field()] =
        benchmark::Counter(ratio, benchmark::Counter::kAvgThreads);
  }
  // The profile of the row's own steps: the same difference per line.
  segment_profile_ = SubtractSegments(
      (*dumps)[3].self_costs, (*dumps)[2].self_costs,
      segments_.steps[2] * std::max<int64_t>(1, iterations_per_step),
      std::llround(instruction_pauses));
  self_costs_ = std::move((*dumps)[3].self_costs);
}

double SimulatedMeter::PerIteration(size_t event,
                                    const std::vector<CallgrindDump>& dumps,
                                    int64_t iterations_per_step) const {
  const SimulatedEvent& e = session_->set.events[event];
  const double pauses = session_->pause_pair[event] * (pauses_[3] - pauses_[2]);
  const double per_iteration =
      1.0 / (static_cast<double>(segments_.steps[2]) *
             std::max<int64_t>(1, iterations_per_step));
  // As doubles: a count that is smaller in the longer segment (a branch
  // miss fewer) is a negative difference, not an unsigned wrap.
  const double shorter = SimulatedValue(e, dumps[2]);
  const double longer = SimulatedValue(e, dumps[3]);
  return (longer - shorter - pauses) * per_iteration;
}

absl::StatusOr<std::vector<double>> SimulatedMeter::Values(
    int threads, int64_t iterations_per_step) {
  absl::StatusOr<std::vector<CallgrindDump>> dumps =
      SegmentDumps(*session_, label_, threads);
  if (!dumps.ok()) return dumps.status();
  std::vector<double> values(session_->set.events.size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = PerIteration(i, *dumps, iterations_per_step);
  }
  return values;
}

absl::StatusOr<std::vector<double>> SimulatedMeter::CalibratePausePair(
    Callgrind& callgrind, const SimulatedEventSet& set) {
  constexpr int kSamples = 3;
  SimulatedMeter meter;
  meter.label_ = NextLabel();
  benchmark::UserCounters counters;
  // The pair turns collection on and off through the same code as a case's.
  State state(meter, counters);
  std::vector<double> pair(set.events.size());
  if (absl::StatusOr<CallgrindDump> d = callgrind.Dump(meter.label_); !d.ok()) {
    return d.status();
  }
  for (int sample = 0; sample < kSamples; ++sample) {
    state.ResumeTiming();
    state.PauseTiming();
    absl::StatusOr<CallgrindDump> dump = callgrind.Dump(meter.label_);
    if (!dump.ok()) return dump.status();
    for (size_t i = 0; i < set.events.size(); ++i) {
      const double v = SimulatedValue(set.events[i], *dump);
      pair[i] = sample == 0 ? v : std::min(pair[i], v);
    }
  }
  return pair;
}

}  // namespace pmubench::internal
