// ProfileSlowdown: how much longer the profiling pass's batch ran than the
// measured batch of the same size, and, when sampling clearly dominated, a
// period that would keep it small. Pure arithmetic: the profile pass
// (profile_pass.h) gives it both batches' real time per iteration.
//
//   ProfiledBatchTimes t{.measured_seconds_per_iteration = 35e-9,
//                        .profiled_seconds_per_iteration = 602e-9,
//                        .iterations = 1000000, .samples = 60261};
//   ProfileSlowdown s = CompareProfiledBatch(t, 10000, /*clock_event=*/true);
//   if (s.warn) out << SlowdownWarning(s);
//   // "the profiled batch ran 17.2x as long as the measured one: sampling
//   //  interrupts dominate; try @100000"
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_SLOWDOWN_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_SLOWDOWN_H_

#include <cstdint>
#include <string>

namespace pmubench {

// Above this ratio the profile is said to misrepresent the case. One batch
// against another of a few ms differs by up to some 20% on a shared VM
// (steal time, a cold first batch); 1.5x means a third of the profiled time
// or more went to taking samples, so the shares describe the sampling as
// much as the case.
inline constexpr double kProfileSlowdownWarnRatio = 1.5;

// The slowdown the suggested period aims at: 10% of the profiled time spent
// sampling, which leaves each function's share within a few points.
inline constexpr double kProfileSlowdownTarget = 1.1;

struct ProfiledBatchTimes {
  double measured_seconds_per_iteration = 0;
  double profiled_seconds_per_iteration = 0;
  int64_t iterations = 0;  // of one thread's batch
  uint64_t samples = 0;    // of one thread (all threads' / threads)
};

struct ProfileSlowdown {
  ProfiledBatchTimes times;
  double ratio = 0;               // profiled / measured; 0 when unknown
  bool warn = false;              // ratio > kProfileSlowdownWarnRatio
  uint64_t period = 0;            // the period the profile used
  uint64_t suggested_period = 0;  // set when warn
};

// The suggestion assumes each sample costs a fixed time c, estimated as the
// extra time over the samples: c = (ratio - 1) x measured batch / samples.
// `clock_event` (cpu-clock, task-clock, counting ns): a period of p ns
// costs c / p, so p = c / (target - 1). Any other event counts the case's
// own work: the samples fall as 1 / period, and so does the extra time:
// p' = p (ratio - 1) / (target - 1). (A clock's own count includes part of
// the sampling's time, so the first gives the smaller period: on a VM
// where one sample costs 40 us, @10000 runs hundreds of times as long.)
ProfileSlowdown CompareProfiledBatch(const ProfiledBatchTimes& times,
                                     uint64_t period, bool clock_event);

// The smallest 1, 2 or 5 x 10^k at least `period` (saturating at the
// largest such value a uint64_t holds).
uint64_t RoundUpTo125(double period);

// "the profiled batch ran 15.3x as long as the measured one: sampling
// interrupts dominate; try @200000".
std::string SlowdownWarning(const ProfileSlowdown& slowdown);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PROFILE_PROFILE_SLOWDOWN_H_
