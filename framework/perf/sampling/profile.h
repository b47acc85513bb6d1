// Profile: samples of one sampling run grouped per function and per source
// line (DWARF line tables, source_lines.h), the top of each with their share,
// and (with callchains) folded stacks, the "outer;...;inner count" lines
// flame graph tools read.
//
//   ProfileBuilder builder;
//   sampler.Drain([&](const ParsedRecord& r) { builder.Add(r); });
//   Profile p = builder.Finish(sampler.tally(), /*top=*/10);
#ifndef PMUBENCH_FRAMEWORK_PERF_SAMPLING_PROFILE_H_
#define PMUBENCH_FRAMEWORK_PERF_SAMPLING_PROFILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "framework/perf/sampling/perf_record.h"
#include "framework/perf/sampling/sampler.h"
#include "framework/perf/symbols/symbolizer.h"

namespace pmubench::perf {

struct FunctionSamples {
  std::string symbol;
  uint64_t samples = 0;
  double share = 0;  // samples / all samples
  // The function's line with most samples; hottest_line 0 when none of its
  // samples has line information.
  std::string hottest_file;
  int hottest_line = 0;
  uint64_t hottest_line_samples = 0;
};

// The samples whose address the line table places at file:line.
struct LineSamples {
  std::string symbol;  // the function, as in FunctionSamples
  std::string file;
  int line = 0;
  uint64_t samples = 0;
  double share = 0;  // samples / all samples (not / samples with a line)
};

struct Profile {
  uint64_t samples = 0;
  uint64_t period_sum = 0;  // events the samples represent (PERF_SAMPLE_PERIOD)
  SampleTally tally;
  std::vector<FunctionSamples> top;  // most samples first, then by name
  // Most samples first; kernel samples and addresses without line
  // information have none.
  std::vector<LineSamples> lines;
  std::map<std::string, uint64_t> folded;  // stack -> samples (callchains)
};

class ProfileBuilder {
 public:
  void Add(const ParsedRecord& sample);
  // `n` events counted exactly in `symbol`, at `file`:`line` when line > 0,
  // as a simulator reports them (valgrind's callgrind): the profile's
  // "samples" are then the events themselves.
  void AddCount(const std::string& symbol, const std::string& file, int line,
                uint64_t n);
  // The `top_n` functions and `top_n` source lines with most samples (all
  // when 0).
  Profile Finish(const SampleTally& tally, size_t top_n);

 private:
  std::string FoldedStack(const ParsedRecord& sample);

  Symbolizer symbols_;
  std::map<std::string, uint64_t> per_function_;
  // (file, line, function) -> samples.
  std::map<std::tuple<std::string, int, std::string>, uint64_t> per_line_;
  std::map<std::string, uint64_t> folded_;
  uint64_t samples_ = 0;
  uint64_t period_sum_ = 0;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SAMPLING_PROFILE_H_
