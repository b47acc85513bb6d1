#include "framework/runner/measure/state.h"

#include <cstring>

#include "framework/runner/measure/batch_meter.h"
#include "framework/runner/measure/simulated_meter.h"

namespace pmubench {

State::State(benchmark::State& gb_state, internal::SimulatedMeter& sim) noexcept
    : State(gb_state, sim, gb_state.counters, false) {}

State::State(benchmark::State& gb_state, internal::SimulatedMeter& sim,
             benchmark::UserCounters& untimed_counters, Untimed) noexcept
    : State(gb_state, sim, untimed_counters, true) {}

State::State(benchmark::State& gb_state, internal::SimulatedMeter& sim,
             benchmark::UserCounters& counters_to_use, bool untimed) noexcept
    : max_iterations(sim.total_steps()),
      counters(counters_to_use),
      gb_(&gb_state),
      meter_(nullptr),
      sim_(&sim),
      untimed_(untimed),
      first_count_(sim.segment_steps(0)),
      sim_steps_(sim.total_steps()),
      segments_left_(4),
      segment_steps_{0, sim.segment_steps(3), sim.segment_steps(2),
                     sim.segment_steps(1)} {
  std::strncpy(dump_label_, sim.label().c_str(), sizeof(dump_label_) - 1);
}

bool State::StartBatch(internal::LoopForm form) {
  if (phase_ != Phase::kNotStarted) return false;
  // KeepRunningBatch(max_iterations) starts the timer and claims the whole
  // batch; it returns false only when an error was set before the loop, in
  // which case Google Benchmark has already finished the batch itself.
  if (gb_ != nullptr && !untimed_ &&
      !gb_->KeepRunningBatch(batch_iterations_)) {
    phase_ = Phase::kFinished;
    return false;
  }
  phase_ = Phase::kRunning;
  // Allocations count from here, outside the counters' window.
  internal::AllocBeginBatch();
  if (meter_ != nullptr) {
    meter_->set_form(form);
    meter_->Start();
  } else if (sim_ != nullptr) {
    sim_->Start();
  }
  return true;
}

void State::FinishBatch() {
  if (phase_ != Phase::kRunning) return;
  phase_ = Phase::kFinished;
  keep_running_left_ = 0;
  if (sim_ != nullptr && !paused_) sim_->Stop();
  const bool counting = meter_ != nullptr && !paused_;
  if (counting) meter_->Stop();
  internal::AllocPause();
  // The batch was claimed whole, so this returns false and stops the timer.
  if (gb_ != nullptr && !untimed_) {
    static_cast<void>(gb_->KeepRunningBatch(1));
  }
  if (counting) meter_->Accumulate(internal::BatchMeter::SegmentEnd::kFinish);
}

void State::FinishAfterBody(const std::string& case_name) {
  if (!gb_->error_occurred() && phase_ == Phase::kRunning) {
    SkipWithError("pmubench: " + case_name +
                  " left its benchmark loop before the end (a `break` or "
                  "`return` inside `for (auto _ : state)`, or a KeepRunning "
                  "loop left before it returned false), so its iteration "
                  "count would be wrong; run the loop to its end, or call "
                  "state.SkipWithError(\"why\") before leaving it");
  } else if (!gb_->error_occurred() && phase_ == Phase::kNotStarted) {
    SkipWithError("pmubench: " + case_name +
                  " returned without running its benchmark loop; run "
                  "`for (auto _ : state)` (or KeepRunning until it returns "
                  "false), or call state.SkipWithError(\"why\") first");
  }
  FinishBatch();
}

void State::PauseTiming() {
  if (sim_ != nullptr) return SimulatedPause();
  const bool counting =
      meter_ != nullptr && phase_ == Phase::kRunning && !paused_;
  if (!untimed_) gb_->PauseTiming();
  if (counting) meter_->Stop();
  internal::AllocPause();
  if (counting) meter_->Accumulate(internal::BatchMeter::SegmentEnd::kPause);
  paused_ = true;
  if (counting && !sampling_pause_pairs_ && meter_->WantsPausePairSample() &&
      !gb_->error_occurred()) {
    SamplePausePairs();
  }
}

void State::ResumeTiming() {
  if (sim_ != nullptr) return SimulatedResume();
  if (phase_ == Phase::kRunning && paused_) internal::AllocResume();
  if (meter_ != nullptr && phase_ == Phase::kRunning && paused_) {
    meter_->Start();
  }
  if (!untimed_) gb_->ResumeTiming();
  paused_ = false;
}

void State::SimulatedPause() {
  const bool counting = phase_ == Phase::kRunning && !paused_;
  if (counting) sim_->Stop();
  internal::AllocPause();
  if (gb_ != nullptr && !untimed_) gb_->PauseTiming();
  paused_ = true;
  // A pair belongs to the segment it paused in (simulated_meter.h).
  if (counting) sim_->CountPause(4 - segments_left_);
}

void State::SimulatedResume() {
  if (gb_ != nullptr && !untimed_) gb_->ResumeTiming();
  const bool counting = phase_ == Phase::kRunning && paused_;
  paused_ = false;
  if (counting) internal::AllocResume();
  if (counting) sim_->Start();
}

void State::SamplePausePairs() {
  sampling_pause_pairs_ = true;
  while (meter_->WantsPausePairSample()) {
    meter_->BeginPausePairSample();
    ResumeTiming();
    PauseTiming();
  }
  sampling_pause_pairs_ = false;
}

void State::SkipWithError(const char* message) {
  gb_->SkipWithError(message);
  // A KeepRunning loop ends after the current iteration, as in Google
  // Benchmark.
  keep_running_left_ = 0;
}

}  // namespace pmubench
