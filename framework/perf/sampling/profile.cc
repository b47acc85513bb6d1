#include "framework/perf/sampling/profile.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "framework/perf/symbols/source_lines.h"

namespace pmubench::perf {
namespace {

// Most samples first; ties keep the map's order. The first `top_n` (all
// when 0).
template <typename Entry>
void KeepTop(std::vector<Entry>& entries, size_t top_n) {
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const Entry& a, const Entry& b) { return a.samples > b.samples; });
  if (top_n != 0 && entries.size() > top_n) entries.resize(top_n);
}

}  // namespace

void ProfileBuilder::Add(const ParsedRecord& sample) {
  ++samples_;
  period_sum_ += sample.period;
  const std::string& name = symbols_.FunctionOf(sample.ip, sample.misc);
  ++per_function_[name];
  // Only user space proper has line tables pmubench reads; the vDSO is
  // named without lines.
  if (symbols_.RegionOf(sample.ip, sample.misc) == CodeRegion::kUser) {
    if (std::optional<SourceLine> at = SourceLineOf(sample.ip)) {
      ++per_line_[{std::move(at->file), at->line, name}];
    }
  }
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
    const uint16_t mode =
        kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
    frames.push_back(&symbols_.FunctionOf(first ? ip : ip - 1, mode));
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

void ProfileBuilder::AddCount(const std::string& symbol,
                              const std::string& file, int line, uint64_t n) {
  per_function_[symbol] += n;
  if (line > 0) per_line_[{file, line, symbol}] += n;
  samples_ += n;
  period_sum_ += n;
}

Profile ProfileBuilder::Finish(const SampleTally& tally, size_t top_n) {
  Profile p;
  p.samples = samples_;
  p.period_sum = period_sum_;
  p.tally = tally;
  p.folded = std::move(folded_);
  auto share = [this](uint64_t n) {
    return samples_ == 0
               ? 0.0
               : static_cast<double>(n) / static_cast<double>(samples_);
  };
  std::map<std::string, FunctionSamples> functions;
  for (auto& [symbol, n] : per_function_) {
    FunctionSamples& f = functions[symbol];
    f.symbol = symbol;
    f.samples = n;
    f.share = share(n);
  }
  for (auto& [where, n] : per_line_) {
    const auto& [file, line, symbol] = where;
    p.lines.push_back({symbol, file, line, n, share(n)});
    FunctionSamples& f = functions[symbol];
    if (n > f.hottest_line_samples) {
      f.hottest_file = file;
      f.hottest_line = line;
      f.hottest_line_samples = n;
    }
  }
  for (auto& [symbol, f] : functions) p.top.push_back(std::move(f));
  KeepTop(p.top, top_n);
  KeepTop(p.lines, top_n);
  return p;
}

}  // namespace pmubench::perf
