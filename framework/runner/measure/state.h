// pmubench::State: what a PMU_BENCHMARK case body sees. It offers the
// benchmark::State surface (range, iterations, max_iterations, threads,
// thread_index, PauseTiming/ResumeTiming, SkipWithError, SetLabel,
// SetItemsProcessed, SetBytesProcessed, SetComplexityN, counters, the
// range-for loop and KeepRunning) and wraps each batch in counter snapshots.
//
// How one batch is measured (docs/design.md has the longer account):
//   1. benchmark::State::KeepRunningBatch(max_iterations) starts the timer and
//      takes the whole batch at once;
//   2. start snapshot of the thread's counter group;
//   3. the user's loop counts down a local counter (the same code as Google
//      Benchmark's own iterator: no extra work per iteration);
//   4. stop snapshot;
//   5. KeepRunningBatch(1) returns false and stops the timer.
// So the counted region is exactly the user's loop: setup before the loop and
// teardown after it are not counted. PauseTiming stops the timer, then takes
// the stop snapshot; ResumeTiming takes the start snapshot, then restarts the
// timer: no snapshot is ever timed, so a case that pauses every iteration
// times as it does under plain Google Benchmark. What State's own code and
// the timer's add to the counts is calibrated and subtracted
// (state_overhead.h).
//
// NOTE: like benchmark::State, a State is used by one thread and lives for
// one batch. Do not break out of the loop except after SkipWithError: a
// loop left early otherwise fails the run with a message that says so.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "framework/runner/alloc/alloc_tally.h"
#include "framework/runner/measure/loop_form.h"
#include "framework/runner/simulate/callgrind_request.h"

namespace pmubench {
namespace internal {
class BatchMeter;
class CaseRunner;
class LayoutCheck;
class SimulatedMeter;
class StateCalibration;
}  // namespace internal

class State {
 public:
  struct StateIterator;
  friend struct StateIterator;

  // `meter` is null when counting is off (--counters=none). Neither pointer
  // is owned; both outlive the State.
  State(benchmark::State& gb_state, internal::BatchMeter* meter) noexcept
      : max_iterations(gb_state.max_iterations),
        counters(gb_state.counters),
        gb_(&gb_state),
        meter_(meter) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // Range-for loop: `for (auto _ : state) { ... }`. end() (called once,
  // before the first iteration) starts the batch: timer, then start
  // snapshot; the loop's exit takes the stop snapshot and stops the timer.
  BENCHMARK_ALWAYS_INLINE StateIterator begin();
  BENCHMARK_ALWAYS_INLINE StateIterator end();

  // `while (state.KeepRunning()) { ... }`: true exactly max_iterations times.
  BENCHMARK_ALWAYS_INLINE bool KeepRunning();

  // `while (state.KeepRunningBatch(n)) { n iterations }`, as in Google
  // Benchmark: true ceil(max_iterations / n) times, and the batch then holds
  // (and its time and counts are divided by) that many times n iterations,
  // so per-iteration counts are exact, as with the range-for loop.
  BENCHMARK_ALWAYS_INLINE bool KeepRunningBatch(benchmark::IterationCount n);

  // Counters pause and resume with the timer (the timer, then the stop
  // snapshot; resume in reverse), so work done while paused is not counted
  // and no snapshot is timed. NOTE: resume before the loop ends, as Google
  // Benchmark requires.
  void PauseTiming();
  void ResumeTiming();

  // Reported as a failed run; the other cases still run and are written.
  // Break out of a range-for loop after calling it (a KeepRunning loop ends
  // by itself at the end of the current iteration).
  void SkipWithError(const char* message);
  void SkipWithError(const std::string& message) {
    SkipWithError(message.c_str());
  }
  bool error_occurred() const {
    return gb_ != nullptr && gb_->error_occurred();
  }

  // In a split set's later turns (case_runner.h) these are dropped: the
  // timed turn has reported them (SetIterationTime would add up).
  void SetIterationTime(double seconds) {
    if (!untimed_) gb_->SetIterationTime(seconds);
  }
  void SetLabel(const std::string& label) {
    if (!untimed_) gb_->SetLabel(label);
  }
  void SetItemsProcessed(int64_t items) {
    if (!untimed_) gb_->SetItemsProcessed(items);
  }
  void SetBytesProcessed(int64_t bytes) {
    if (!untimed_) gb_->SetBytesProcessed(bytes);
  }
  void SetComplexityN(int64_t n) {
    if (!untimed_) gb_->SetComplexityN(n);
  }
  int64_t items_processed() const { return gb_->items_processed(); }
  int64_t bytes_processed() const { return gb_->bytes_processed(); }
  int64_t complexity_length_n() const { return gb_->complexity_length_n(); }

  int64_t range(std::size_t pos = 0) const { return gb_->range(pos); }
  int threads() const { return gb_->threads(); }
  int thread_index() const { return gb_->thread_index(); }
  // 0 before the loop; max_iterations once it has started.
  benchmark::IterationCount iterations() const { return gb_->iterations(); }

  // The Google Benchmark state underneath, for anything not mirrored here.
  // NOTE: calling its KeepRunning/PauseTiming directly bypasses the counters.
  benchmark::State& benchmark_state() { return *gb_; }

  const benchmark::IterationCount max_iterations;
  benchmark::UserCounters& counters;

 private:
  friend class internal::CaseRunner;
  friend class internal::LayoutCheck;
  friend class internal::SimulatedMeter;
  friend class internal::StateCalibration;

  enum class Phase { kNotStarted, kRunning, kFinished };

  // A State with no Google Benchmark state under it, for the empty batches
  // that calibrate State's own overhead (state_calibration.h): the same code
  // between the snapshots, the Google Benchmark calls (outside them) left
  // out.
  State(internal::BatchMeter* meter, benchmark::IterationCount iterations,
        benchmark::UserCounters& calibration_counters) noexcept
      : max_iterations(iterations),
        counters(calibration_counters),
        gb_(nullptr),
        meter_(meter) {}

  // A split set's later turn (case_runner.h): the body runs again on the
  // batch Google Benchmark just timed, counted by the turn's group, with
  // Google Benchmark's loop and timer left alone (its batch is over) and
  // the body's own counters kept apart in `untimed_counters` (a `+=` would
  // add up over the turns).
  struct Untimed {};
  State(benchmark::State& gb_state, internal::BatchMeter* meter,
        benchmark::UserCounters& untimed_counters, Untimed) noexcept
      : max_iterations(gb_state.max_iterations),
        counters(untimed_counters),
        gb_(&gb_state),
        meter_(meter),
        untimed_(true) {}

  // Counting by callgrind (simulated_meter.h): the loop runs the meter's
  // fixed number of steps (range-for or KeepRunning iterations,
  // KeepRunningBatch calls) in segments, with a callgrind dump at each
  // boundary, whatever Google Benchmark asked for.
  State(benchmark::State& gb_state, internal::SimulatedMeter& sim) noexcept;
  // The same, untimed: the body runs again on the batch Google Benchmark
  // just timed, its loop and timer left alone and the body's own counters
  // kept apart in `untimed_counters` (the layout check, layout_check.h).
  State(benchmark::State& gb_state, internal::SimulatedMeter& sim,
        benchmark::UserCounters& untimed_counters, Untimed) noexcept;
  // Both of the above: counting into `counters_to_use`, timed or not.
  State(benchmark::State& gb_state, internal::SimulatedMeter& sim,
        benchmark::UserCounters& counters_to_use, bool untimed) noexcept;
  // A State inside its loop, paused, with no Google Benchmark state under
  // it, for the ResumeTiming..PauseTiming pairs that calibrate what a pair
  // adds under callgrind (SimulatedMeter::CalibratePausePair).
  State(internal::SimulatedMeter& sim,
        benchmark::UserCounters& calibration_counters) noexcept
      : max_iterations(1),
        counters(calibration_counters),
        gb_(nullptr),
        meter_(nullptr),
        sim_(&sim),
        phase_(Phase::kRunning),
        paused_(true) {}

  // A loop's countdown reached 0. Under callgrind, while segments remain:
  // dump callgrind's costs (labelled for this State) and return the next
  // segment's steps. Otherwise 0: the loop ends. Inline and call-free (see
  // callgrind_request.h): the loop around it compiles as without it, and
  // every boundary runs the same instructions, so the segments' fixed costs
  // are equal.
  BENCHMARK_ALWAYS_INLINE benchmark::IterationCount SegmentBoundary() {
    if (BENCHMARK_BUILTIN_EXPECT(segments_left_ == 0, true)) return 0;
    internal::AllocMark(4 - segments_left_);
    internal::CallgrindDumpStatsAt(dump_label_);
    return segment_steps_[--segments_left_];
  }
  // Under callgrind: collection off first, then the timer (resume: the
  // timer, then collection), so the counted part of a pause pair holds no
  // timer code and is calibrated exactly.
  void SimulatedPause();
  void SimulatedResume();

  // Steps 1-2, for a loop of `form`. False when Google Benchmark refuses to
  // run (an error was set before the loop); the loop then runs zero times.
  bool StartBatch(internal::LoopForm form);
  // Steps 4-5. Safe to call more than once.
  void FinishBatch();
  // After the case body returned: a body that left its loop early (`break`)
  // or never ran it, without SkipWithError, would report iterations that
  // did not run; this fails the run instead, naming `case_name` and the fix.
  // Then FinishBatch.
  void FinishAfterBody(const std::string& case_name);
  // At the first PauseTiming calls on a group: empty ResumeTiming..
  // PauseTiming pairs, measured as the case's own pairs are (timer code
  // included), so that their cost can be subtracted. Called paused.
  void SamplePausePairs();

  // Null only in a calibration State.
  benchmark::State* const gb_;
  internal::BatchMeter* const meter_;
  // Non-null when callgrind counts (meter_ is null then).
  internal::SimulatedMeter* const sim_ = nullptr;
  // A later turn of a split set: gb_ is read (range, threads, errors) but
  // its loop and timer are not driven.
  const bool untimed_ = false;
  Phase phase_ = Phase::kNotStarted;
  bool paused_ = false;
  bool sampling_pause_pairs_ = false;
  benchmark::IterationCount keep_running_left_ = 0;
  // What StartBatch claims from Google Benchmark: max_iterations, or a
  // multiple of KeepRunningBatch's n.
  benchmark::IterationCount batch_iterations_ = max_iterations;
  // The loop steps up to the first boundary: max_iterations natively.
  benchmark::IterationCount first_count_ = max_iterations;
  // Under callgrind: the loop's steps in all (else 0), the boundaries still
  // to come and the steps after each, last first, and the label of this
  // State's dumps.
  benchmark::IterationCount sim_steps_ = 0;
  int segments_left_ = 0;
  benchmark::IterationCount segment_steps_[4] = {};
  char dump_label_[40] = {};
};

struct State::StateIterator {
  struct BENCHMARK_UNUSED Value {};
  using iterator_category = std::forward_iterator_tag;
  using value_type = Value;
  using reference = Value;
  using pointer = Value;
  using difference_type = std::ptrdiff_t;

  BENCHMARK_ALWAYS_INLINE StateIterator() : cached_(0), parent_(nullptr) {}
  BENCHMARK_ALWAYS_INLINE explicit StateIterator(State* state)
      : cached_(state->error_occurred() ? 0 : state->first_count_),
        parent_(state) {}

  BENCHMARK_ALWAYS_INLINE Value operator*() const { return Value(); }
  BENCHMARK_ALWAYS_INLINE StateIterator& operator++() {
    if (BENCHMARK_BUILTIN_EXPECT(--cached_ == 0, false)) {
      cached_ = parent_->SegmentBoundary();
    }
    return *this;
  }
  // The only per-iteration work: a decrement and this compare, as in
  // benchmark::State::StateIterator.
  BENCHMARK_ALWAYS_INLINE bool operator!=(const StateIterator&) const {
    if (BENCHMARK_BUILTIN_EXPECT(cached_ != 0, true)) return true;
    parent_->FinishBatch();
    return false;
  }

 private:
  benchmark::IterationCount cached_;
  State* const parent_;
};

inline BENCHMARK_ALWAYS_INLINE State::StateIterator State::begin() {
  return StateIterator(this);
}
// The range-for loop calls begin() and then end() before the first
// iteration; end() starts the batch, as benchmark::State::end() does. The
// same shape as Google Benchmark's loop lets the compiler lay the countdown
// out the same way.
inline BENCHMARK_ALWAYS_INLINE State::StateIterator State::end() {
  StartBatch(internal::LoopForm::kRangeFor);
  return StateIterator();
}

inline BENCHMARK_ALWAYS_INLINE bool State::KeepRunning() {
  if (BENCHMARK_BUILTIN_EXPECT(keep_running_left_ != 0, true)) {
    --keep_running_left_;
    return true;
  }
  if (phase_ == Phase::kNotStarted &&
      StartBatch(internal::LoopForm::kKeepRunning)) {
    keep_running_left_ = first_count_ - 1;
    return true;
  }
  if (const benchmark::IterationCount next = SegmentBoundary(); next != 0) {
    keep_running_left_ = next - 1;
    return true;
  }
  FinishBatch();
  return false;
}

inline BENCHMARK_ALWAYS_INLINE bool State::KeepRunningBatch(
    benchmark::IterationCount n) {
  if (BENCHMARK_BUILTIN_EXPECT(keep_running_left_ != 0, true)) {
    --keep_running_left_;
    return true;
  }
  if (phase_ == Phase::kNotStarted && n > 0) {
    // Under callgrind a step is one call of n iterations.
    const benchmark::IterationCount batches =
        sim_steps_ != 0 ? sim_steps_ : (max_iterations + n - 1) / n;
    batch_iterations_ = batches * n;
    if (StartBatch(internal::LoopForm::kKeepRunningBatch)) {
      keep_running_left_ = (sim_steps_ != 0 ? first_count_ : batches) - 1;
      return true;
    }
  }
  if (const benchmark::IterationCount next = SegmentBoundary(); next != 0) {
    keep_running_left_ = next - 1;
    return true;
  }
  FinishBatch();
  return false;
}

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_MEASURE_STATE_H_
