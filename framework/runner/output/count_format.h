// How the console prints a counter's value: counts with an SI suffix, time
// events (task-clock, cpu-clock: nanoseconds) as a time, ratios and
// coefficients of variation as percentages, and "n/a" for a value that is
// not a number (the cv of a counter that is always 0 is 0/0).
//
//   FormatCounter(1234.5, UnitOf("task-clock")) == "1.234us"
//   FormatCounter(0.0123, UnitOf("branch-miss-ratio")) == "1.23%"
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_COUNT_FORMAT_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_COUNT_FORMAT_H_

#include <string>
#include <string_view>

namespace pmubench {

enum class CounterUnit {
  kCount,        // events per iteration: no unit
  kNanoseconds,  // task-clock, cpu-clock (perf_event_open(2): in ns)
  kRatio,        // a derived <x>-miss-ratio: a fraction
};

// The unit of the field `name` (an event spec or a derived metric name,
// with or without a :u/:k modifier).
CounterUnit UnitOf(std::string_view name);

// "8", "0.25", "812.3", "1.234k", "12.35M": at most 4 significant digits;
// "n/a" for NaN or infinity.
std::string FormatCount(double value);

// `value` in `unit`: FormatCount for counts, "812ns" / "1.234us" /
// "12.35ms" / "1.5s" for nanoseconds, "1.23%" for a ratio; "n/a" for NaN or
// infinity.
std::string FormatCounter(double value, CounterUnit unit);

// 100 * `fraction` with `decimals` digits and a '%'; "n/a" for NaN or
// infinity (never "-nan%").
std::string FormatPercent(double fraction, int decimals);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_COUNT_FORMAT_H_
