#include "framework/perf/profile.h"

#include <algorithm>
#include <utility>

namespace pmubench::perf {
namespace {

bool InKernel(uint16_t misc) {
  return (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

}  // namespace

void ProfileBuilder::Add(const ParsedRecord& sample) {
  ++samples_;
  period_sum_ += sample.period;
  const std::string& name =
      InKernel(sample.misc) ? std::string(kKernelSymbol)
                            : symbols_.FunctionOf(sample.ip);
  ++per_function_[name];
  if (!sample.callchain.empty()) ++folded_[FoldedStack(sample)];
}

// Callchain entries after the first are return addresses: ip - 1 lies in
// the calling instruction, so the caller's symbol (inlined tails aside).
std::string ProfileBuilder::FoldedStack(const ParsedRecord& sample) {
  std::vector<const std::string*> frames;
  bool kernel = false;
  bool first = true;
  for (uint64_t ip : sample.callchain) {
    if (IsCallchainContext(ip)) {
      kernel = ip == static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
      continue;
    }
    static const std::string kKernel = kKernelSymbol;
    frames.push_back(kernel ? &kKernel
                            : &symbols_.FunctionOf(first ? ip : ip - 1));
    first = false;
  }
  std::string stack;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (!stack.empty()) stack += ';';
    stack += **it;
  }
  // Readers split a line on its last space; demangled names may hold
  // spaces but never end a line, so they survive.
  return stack;
}

Profile ProfileBuilder::Finish(const SampleTally& tally, size_t top_n) {
  Profile p;
  p.samples = samples_;
  p.period_sum = period_sum_;
  p.tally = tally;
  p.folded = std::move(folded_);
  for (auto& [symbol, n] : per_function_) {
    p.top.push_back({symbol, n, samples_ == 0 ? 0.0
                                              : static_cast<double>(n) /
                                                    static_cast<double>(samples_)});
  }
  std::stable_sort(p.top.begin(), p.top.end(),
                   [](const FunctionSamples& a, const FunctionSamples& b) {
                     return a.samples > b.samples;
                   });
  if (top_n != 0 && p.top.size() > top_n) p.top.resize(top_n);
  return p;
}

}  // namespace pmubench::perf
