#include "framework/perf/events/pmu.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "framework/perf/system/string_view_bridge.h"
#include "framework/perf/system/sysfs_file.h"

namespace pmubench::perf {
namespace {

namespace fs = std::filesystem;

// Core PMUs: x86 names them "cpu" (hybrid: "cpu_core", "cpu_atom"); arm64
// names them after the core ("armv8_pmuv3_0", "armv8_cortex_a76",
// drivers/perf/arm_pmuv3.c; Apple's "apple_firestorm_pmu") and gives them a
// cpus file (drivers/perf/arm_pmu.c) and an event format term.
bool IsCorePmuDirectory(const std::string& name, const fs::path& dir,
                        const std::map<std::string, FormatField>& formats) {
  if (name == "cpu" || name == "cpu_core" || name == "cpu_atom") return true;
  const bool arm_name =
      absl::StartsWith(name, "armv8_") || absl::StartsWith(name, "armv9_") ||
      (absl::StartsWith(name, "apple_") && absl::EndsWith(name, "_pmu"));
  if (!arm_name) return false;
  std::error_code ec;
  return formats.count("event") != 0 || fs::exists(dir / "cpus", ec);
}

absl::StatusOr<int> ParseBit(absl::string_view text, absl::string_view whole) {
  int bit = 0;
  if (!absl::SimpleAtoi(text, &bit) || bit < 0 || bit > 63) {
    return absl::InvalidArgumentError(absl::StrCat(
        "format \"", whole, "\": bit \"", text, "\" is not a number in 0..63"));
  }
  return bit;
}

// A CPU number of a cpu list: decimal digits only (no sign, no spaces),
// below kCpuLimit; nullopt otherwise.
std::optional<int> ParseCpuNumber(absl::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int cpu = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    cpu = cpu * 10 + (c - '0');
  }
  if (cpu >= kCpuLimit) return std::nullopt;
  return cpu;
}

// At most the first 40 characters of `text`, for an error message.
std::string Excerpt(absl::string_view text) {
  if (text.size() <= 40) return std::string(text);
  return absl::StrCat(text.substr(0, 40), "...");
}

// Reads events/<alias> plus its .scale and .unit companions. Other
// companions (.snapshot, .per-pkg) do not change what a counting read means.
std::map<std::string, EventAlias> LoadAliases(const fs::path& dir) {
  std::map<std::string, EventAlias> aliases;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find('.') != std::string::npos) continue;
    std::optional<std::string> terms = ReadTrimmedFile(entry.path().string());
    if (!terms) continue;
    EventAlias alias;
    alias.terms = *terms;
    const std::string scale_path = (dir / (name + ".scale")).string();
    if (std::optional<std::string> scale = ReadTrimmedFile(scale_path)) {
      double value = 1.0;
      if (absl::SimpleAtod(*scale, &value) && std::isfinite(value) &&
          value > 0) {
        alias.scale = value;
      } else {
        alias.bad_scale = absl::StrCat(scale_path, " = \"", *scale, "\"");
      }
    }
    if (std::optional<std::string> unit =
            ReadTrimmedFile((dir / (name + ".unit")).string())) {
      alias.unit = *unit;
    }
    aliases.emplace(name, std::move(alias));
  }
  return aliases;
}

// Reads format/<term>. A field this parser cannot express (for example
// config3 of newer kernels) is left out; using it then fails as an unknown
// term, naming the valid ones.
std::map<std::string, FormatField> LoadFormats(const fs::path& dir) {
  std::map<std::string, FormatField> formats;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    std::optional<std::string> text = ReadTrimmedFile(entry.path().string());
    if (!text) continue;
    absl::StatusOr<FormatField> field = PmuRegistry::ParseFormat(*text);
    if (field.ok()) {
      formats.emplace(entry.path().filename().string(), *std::move(field));
    }
  }
  return formats;
}

// One <root>/<pmu> directory; nullopt when it has no numeric type file.
std::optional<Pmu> LoadPmu(const fs::path& dir) {
  std::optional<std::string> type_text =
      ReadTrimmedFile((dir / "type").string());
  uint32_t type = 0;
  if (!type_text || !absl::SimpleAtoi(*type_text, &type)) return std::nullopt;
  Pmu pmu;
  pmu.name = dir.filename().string();
  pmu.type = type;
  pmu.formats = LoadFormats(dir / "format");
  pmu.aliases = LoadAliases(dir / "events");
  pmu.is_core = IsCorePmuDirectory(pmu.name, dir, pmu.formats);
  if (std::optional<std::string> cpus =
          ReadTrimmedFile((dir / "cpus").string())) {
    if (absl::StatusOr<std::vector<int>> list =
            PmuRegistry::ParseCpuList(*cpus);
        list.ok()) {
      pmu.cpus = *std::move(list);
    }
  }
  return pmu;
}

}  // namespace

absl::StatusOr<FormatField> PmuRegistry::ParseFormat(
    std::string_view format_text) {
  const absl::string_view text =
      absl::StripAsciiWhitespace(AsAbsl(format_text));
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "format \"", text, "\": expected config[12]:LO-HI[,BIT...]"));
  }
  const absl::string_view word_name = text.substr(0, colon);
  int word = 0;
  if (word_name == "config") {
    word = 0;
  } else if (word_name == "config1") {
    word = 1;
  } else if (word_name == "config2") {
    word = 2;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("format \"", text, "\": unknown word \"", word_name,
                     "\" (expected config, config1 or config2)"));
  }
  FormatField field;
  for (absl::string_view part : absl::StrSplit(text.substr(colon + 1), ',')) {
    BitRange range{word, 0, 0};
    const size_t dash = part.find('-');
    absl::StatusOr<int> lo = ParseBit(part.substr(0, dash), text);
    if (!lo.ok()) return lo.status();
    range.lo = range.hi = *lo;
    if (dash != absl::string_view::npos) {
      absl::StatusOr<int> hi = ParseBit(part.substr(dash + 1), text);
      if (!hi.ok()) return hi.status();
      range.hi = *hi;
    }
    if (range.hi < range.lo) {
      return absl::InvalidArgumentError(absl::StrCat(
          "format \"", text, "\": range \"", part, "\" runs backwards"));
    }
    field.ranges.push_back(range);
  }
  return field;
}

absl::StatusOr<std::vector<int>> PmuRegistry::ParseCpuList(
    std::string_view list_text) {
  std::vector<int> cpus;
  const absl::string_view text = absl::StripAsciiWhitespace(AsAbsl(list_text));
  if (text.empty()) return cpus;
  int next = 0;  // the lowest CPU the next part may name
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    const size_t dash = part.find('-');
    std::optional<int> lo = ParseCpuNumber(part.substr(0, dash));
    std::optional<int> hi = lo;
    if (dash != absl::string_view::npos)
      hi = ParseCpuNumber(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cpu list \"", Excerpt(text), "\": \"", Excerpt(part),
          "\" is not N or N-M with N <= M, decimal CPU numbers below ",
          kCpuLimit));
    }
    if (*lo < next) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cpu list \"", Excerpt(text), "\": \"", Excerpt(part),
          "\" does not come after the part before it (the kernel lists "
          "CPUs in ascending order, each once)"));
    }
    for (int cpu = *lo; cpu <= *hi; ++cpu) cpus.push_back(cpu);
    next = *hi + 1;
  }
  return cpus;
}

absl::StatusOr<PmuRegistry> PmuRegistry::Load(std::string root) {
  PmuRegistry registry;
  registry.root_ = root;
  std::error_code ec;
  fs::directory_iterator it(root, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return registry;
    return absl::UnavailableError(absl::StrCat("cannot list PMUs in ", root,
                                               ": ", ec.message(),
                                               " (is sysfs mounted at /sys?)"));
  }
  for (const fs::directory_entry& entry : it) {
    if (std::optional<Pmu> pmu = LoadPmu(entry.path())) {
      std::string name = pmu->name;
      registry.pmus_.emplace(std::move(name), *std::move(pmu));
    }
  }
  if (const Pmu* core = registry.CorePmu()) {
    std::optional<std::string> rdpmc =
        ReadTrimmedFile((fs::path(root) / core->name / "rdpmc").string());
    int setting = 0;
    if (rdpmc && absl::SimpleAtoi(*rdpmc, &setting)) {
      registry.rdpmc_setting_ = setting;
    }
  }
  return registry;
}

const Pmu* PmuRegistry::Find(std::string_view name) const {
  auto it = pmus_.find(std::string(name));
  return it == pmus_.end() ? nullptr : &it->second;
}

std::vector<std::string> PmuRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(pmus_.size());
  for (const auto& [name, pmu] : pmus_) names.push_back(name);
  return names;
}

std::vector<const Pmu*> PmuRegistry::CorePmus() const {
  std::vector<const Pmu*> cores;
  for (const auto& [name, pmu] : pmus_) {
    if (pmu.is_core) cores.push_back(&pmu);
  }
  return cores;
}

const Pmu* PmuRegistry::CorePmu() const {
  if (const Pmu* cpu = Find("cpu"); cpu != nullptr && cpu->is_core) return cpu;
  if (const Pmu* p = Find("cpu_core"); p != nullptr && p->is_core) return p;
  const Pmu* best = nullptr;
  int best_cpu = -1;
  for (const Pmu* pmu : CorePmus()) {
    if (pmu->name == "cpu_atom") continue;  // x86 E-cores: cpu_core first
    const int highest = pmu->cpus.empty() ? -1
                                          : *std::max_element(pmu->cpus.begin(),
                                                              pmu->cpus.end());
    if (best == nullptr || highest > best_cpu) {
      best = pmu;
      best_cpu = highest;
    }
  }
  if (best == nullptr) return Find("cpu_atom");
  return best;
}

std::optional<int> PmuRegistry::RdpmcSetting() const { return rdpmc_setting_; }

absl::StatusOr<std::vector<int>> PmuRegistry::CpuList(
    std::string_view pmu_name_text) const {
  const absl::string_view pmu_name = AsAbsl(pmu_name_text);
  if (Find(pmu_name_text) == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no PMU \"", pmu_name, "\" under ", root_));
  }
  const fs::path dir = fs::path(root_) / std::string(pmu_name);
  for (const char* file : {"cpus", "cpumask"}) {
    if (std::optional<std::string> text =
            ReadTrimmedFile((dir / file).string())) {
      return ParseCpuList(*text);
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "PMU \"", pmu_name, "\" has neither ", (dir / "cpus").string(), " nor ",
      (dir / "cpumask").string(), "; it is not tied to a subset of CPUs"));
}

}  // namespace pmubench::perf
