#include "framework/runner/output/count_format.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench {
namespace {

constexpr char kNotANumber[] = "n/a";

}  // namespace

CounterUnit UnitOf(std::string_view name_text) {
  absl::string_view name = perf::AsAbsl(name_text);
  // A trailing :u, :k or :uk modifier does not change the unit.
  if (const size_t colon = name.rfind(':');
      colon != absl::string_view::npos &&
      name.find('/', colon) == absl::string_view::npos) {
    name = name.substr(0, colon);
  }
  if (name == "task-clock" || name == "cpu-clock") {
    return CounterUnit::kNanoseconds;
  }
  if (absl::EndsWith(name, "-ratio")) return CounterUnit::kRatio;
  return CounterUnit::kCount;
}

std::string FormatCount(double value) {
  if (!std::isfinite(value)) return kNotANumber;
  const double magnitude = std::fabs(value);
  if (magnitude < 1000) return absl::StrFormat("%.4g", value);
  static constexpr const char* kSuffix[] = {"k", "M", "G", "T", "P"};
  double scaled = value / 1000;
  int unit = 0;
  while (std::fabs(scaled) >= 1000 && unit < 4) {
    scaled /= 1000;
    ++unit;
  }
  return absl::StrCat(absl::StrFormat("%.4g", scaled), kSuffix[unit]);
}

std::string FormatPercent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return kNotANumber;
  return absl::StrFormat("%.*f%%", decimals, 100 * fraction);
}

std::string FormatCounter(double value, CounterUnit unit) {
  if (!std::isfinite(value)) return kNotANumber;
  switch (unit) {
    case CounterUnit::kCount:
      return FormatCount(value);
    case CounterUnit::kRatio:
      return FormatPercent(value, 2);
    case CounterUnit::kNanoseconds: {
      static constexpr const char* kUnits[] = {"ns", "us", "ms", "s"};
      double scaled = value;
      int unit_index = 0;
      while (std::fabs(scaled) >= 1000 && unit_index < 3) {
        scaled /= 1000;
        ++unit_index;
      }
      return absl::StrCat(absl::StrFormat("%.4g", scaled), kUnits[unit_index]);
    }
  }
  return FormatCount(value);
}

}  // namespace pmubench
