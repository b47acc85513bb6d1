// Strings: Abseil's StrCat, StrSplit and StrFormat against the standard
// library ways of doing the same job. One operation per iteration; every
// variant produces the same result (a std::string, or the pieces of a line).
// libstdc++ 12 has no std::format, so the standard side is operator+ with
// std::to_string, std::ostringstream, snprintf and std::getline.
//
// On hardware with a PMU the time differences are explained by instructions
// per iteration: StrCat computes the final size and copies each piece once;
// operator+ builds and copies temporaries; ostringstream goes through locale
// and virtual calls (several times the instructions, and more branches);
// snprintf parses its format string at run time, StrFormat checks it at
// compile time. IPC is similar across variants, so instructions is the
// number to compare. For splitting, StrSplit into string_views allocates only
// the vector, while getline copies every field into a new std::string.

#include <pmubench/pmubench.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace pmubench::benches {
namespace {

constexpr char kStringCounters[] = "instructions,cycles,branch-misses";

// Each concatenation variant builds "user_<id>@example.com" with a changing
// id, so the compiler cannot compute the result once; the result exceeds the
// small-string buffer, so every variant allocates it.
constexpr char kDomain[] = "example.com";

void BM_ConcatAbslStrCat(pmubench::State& state) {
  int id = 100000;
  for (auto _ : state) {
    std::string s = absl::StrCat("user_", id++, "@", kDomain);
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_ConcatAbslStrCat, kStringCounters);

void BM_ConcatStdPlus(pmubench::State& state) {
  int id = 100000;
  for (auto _ : state) {
    std::string s = "user_" + std::to_string(id++) + "@" + kDomain;
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_ConcatStdPlus, kStringCounters);

void BM_ConcatOstringstream(pmubench::State& state) {
  int id = 100000;
  for (auto _ : state) {
    std::ostringstream out;
    out << "user_" << id++ << "@" << kDomain;
    std::string s = out.str();
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_ConcatOstringstream, kStringCounters);

void BM_ConcatSnprintf(pmubench::State& state) {
  int id = 100000;
  for (auto _ : state) {
    char buffer[64];
    const int n =
        std::snprintf(buffer, sizeof(buffer), "user_%d@%s", id++, kDomain);
    std::string s(buffer, static_cast<size_t>(n));
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_ConcatSnprintf, kStringCounters);

// 16 comma-separated fields of 4-12 characters.
constexpr char kCsvLine[] =
    "alpha,beta,gamma,delta,epsilon,zeta,eta,theta,iota,kappa,lambda,mu,nu,"
    "xi,omicron,pi";

void BM_SplitAbslStrSplit(pmubench::State& state) {
  const absl::string_view line = kCsvLine;
  for (auto _ : state) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    benchmark::DoNotOptimize(fields);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_SplitAbslStrSplit, kStringCounters);

// The hand-written standard-library equivalent of StrSplit into views.
void BM_SplitStringViewFind(pmubench::State& state) {
  const std::string_view line = kCsvLine;
  for (auto _ : state) {
    std::vector<std::string_view> fields;
    size_t begin = 0;
    while (true) {
      const size_t comma = line.find(',', begin);
      fields.push_back(line.substr(begin, comma - begin));
      if (comma == std::string_view::npos) break;
      begin = comma + 1;
    }
    benchmark::DoNotOptimize(fields);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_SplitStringViewFind, kStringCounters);

void BM_SplitGetline(pmubench::State& state) {
  for (auto _ : state) {
    std::istringstream in(kCsvLine);
    std::vector<std::string> fields;
    std::string field;
    while (std::getline(in, field, ',')) fields.push_back(field);
    benchmark::DoNotOptimize(fields);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_SplitGetline, kStringCounters);

// "<name>: <count> items, <percent>%" with a changing count and percentage.
constexpr char kName[] = "throughput";

void BM_FormatAbslStrFormat(pmubench::State& state) {
  int count = 0;
  for (auto _ : state) {
    std::string s =
        absl::StrFormat("%s: %d items, %.2f%%", kName, count, count * 0.01);
    ++count;
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_FormatAbslStrFormat, kStringCounters);

void BM_FormatSnprintf(pmubench::State& state) {
  int count = 0;
  for (auto _ : state) {
    char buffer[64];
    const int n = std::snprintf(buffer, sizeof(buffer), "%s: %d items, %.2f%%",
                                kName, count, count * 0.01);
    ++count;
    std::string s(buffer, static_cast<size_t>(n));
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_FormatSnprintf, kStringCounters);

void BM_FormatOstringstream(pmubench::State& state) {
  int count = 0;
  for (auto _ : state) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(2);
    out << kName << ": " << count << " items, " << count * 0.01 << "%";
    ++count;
    std::string s = out.str();
    benchmark::DoNotOptimize(s);
  }
}
PMU_BENCHMARK_WITH_COUNTERS(BM_FormatOstringstream, kStringCounters);

}  // namespace
}  // namespace pmubench::benches
