#include "framework/perf/events/event_spec.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/perf/events/named_events.h"
#include "framework/perf/events/near_names.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench::perf {
namespace {

// An error about `spec` at byte `pos`, with the spec echoed and a caret under
// the offending character:
//   event spec "cpu/evnt=1/" at column 5: unknown term "evnt" ...
//     cpu/evnt=1/
//         ^
absl::Status SpecError(absl::StatusCode code, absl::string_view spec,
                       size_t pos, absl::string_view what) {
  return absl::Status(code, absl::StrCat("event spec \"", spec, "\" at column ",
                                         pos + 1, ": ", what, "\n  ", spec,
                                         "\n  ", std::string(pos, ' '), "^"));
}

std::string DidYouMean(const std::vector<std::string>& near) {
  if (near.empty()) return "";
  return absl::StrCat(" (did you mean ", absl::StrJoin(near, ", "), "?)");
}

// Parses the modifier suffix ("u", "k", "uk", "ku"; "" keeps the defaults).
// `pos` is where the suffix starts in `spec`, for the error caret.
absl::StatusOr<Modifiers> ParseModifiers(absl::string_view text,
                                         absl::string_view spec, size_t pos) {
  Modifiers m;
  if (text.empty()) return m;
  m.explicit_ = true;
  m.user = false;
  m.kernel = false;
  for (size_t i = 0; i < text.size(); ++i) {
    bool* flag = text[i] == 'u'   ? &m.user
                 : text[i] == 'k' ? &m.kernel
                                  : nullptr;
    if (flag == nullptr) {
      return SpecError(absl::StatusCode::kInvalidArgument, spec, pos + i,
                       absl::StrCat("unsupported modifier '", text.substr(i, 1),
                                    "' (valid modifiers: u, k, uk)"));
    }
    if (*flag) {
      return SpecError(
          absl::StatusCode::kInvalidArgument, spec, pos + i,
          absl::StrCat("modifier '", text.substr(i, 1),
                       "' given twice (valid modifiers: u, k, uk)"));
    }
    *flag = true;
  }
  return m;
}

// Parses "123" or "0x7b" into a 64-bit value.
std::optional<uint64_t> ParseNumber(absl::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

int FieldWidth(const FormatField& field) {
  int width = 0;
  for (const BitRange& r : field.ranges) width += r.hi - r.lo + 1;
  return width;
}

std::string FormatText(const FormatField& field) {
  static constexpr const char* kWords[] = {"config", "config1", "config2"};
  std::vector<std::string> parts;
  for (const BitRange& r : field.ranges) {
    parts.push_back(r.lo == r.hi ? absl::StrCat(r.lo)
                                 : absl::StrCat(r.lo, "-", r.hi));
  }
  return absl::StrCat(kWords[field.ranges.empty() ? 0 : field.ranges[0].word],
                      ":", absl::StrJoin(parts, ","));
}

uint64_t* Word(ResolvedEvent& event, int word) {
  return word == 0   ? &event.config
         : word == 1 ? &event.config1
                     : &event.config2;
}

// Writes `value` into the field's bits: its low bits fill the first range,
// the next bits the second, and so on. The field's old bits are cleared
// first, so a term written after an alias overrides the alias's value.
void Deposit(const FormatField& field, uint64_t value, ResolvedEvent& event) {
  for (const BitRange& r : field.ranges) {
    const int width = r.hi - r.lo + 1;
    const uint64_t mask =
        width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
    uint64_t* word = Word(event, r.word);
    *word = (*word & ~(mask << r.lo)) | ((value & mask) << r.lo);
    value = width >= 64 ? 0 : value >> width;
  }
}

std::vector<std::string> TermNames(const Pmu& pmu, bool with_aliases) {
  std::vector<std::string> names;
  for (const auto& [name, field] : pmu.formats) names.push_back(name);
  names.insert(names.end(), {"config", "config1", "config2"});
  if (with_aliases) {
    for (const auto& [name, alias] : pmu.aliases) names.push_back(name);
  }
  return names;
}

// Where a term's value lands: one of the config words, a format field, or
// an alias that expands to its own terms.
absl::Status ApplyTerms(absl::string_view terms, size_t offset,
                        absl::string_view spec, const Pmu& pmu,
                        bool allow_aliases, ResolvedEvent& event,
                        std::set<std::string>& written);

absl::Status ApplyFormatTerm(const FormatField& field, absl::string_view name,
                             absl::string_view value_text, uint64_t value,
                             absl::string_view spec, size_t value_pos,
                             ResolvedEvent& event) {
  const int width = FieldWidth(field);
  if (width < 64 && (value >> width) != 0) {
    return SpecError(
        absl::StatusCode::kInvalidArgument, spec, value_pos,
        absl::StrCat("value ", value_text, " does not fit term \"", name,
                     "\" (", width, " bits: ", FormatText(field), ")"));
  }
  Deposit(field, value, event);
  return absl::OkStatus();
}

absl::Status ApplyAlias(const EventAlias& alias, absl::string_view name,
                        absl::string_view spec, size_t pos, const Pmu& pmu,
                        ResolvedEvent& event, std::set<std::string>& written) {
  if (!alias.bad_scale.empty()) {
    return SpecError(
        absl::StatusCode::kInvalidArgument, spec, pos,
        absl::StrCat("alias \"", name, "\" of PMU ", pmu.name,
                     " has a scale that is not a positive finite number (",
                     alias.bad_scale, "); count it unscaled with its terms: ",
                     pmu.name, "/", alias.terms, "/"));
  }
  absl::Status expanded = ApplyTerms(alias.terms, 0, alias.terms, pmu,
                                     /*allow_aliases=*/false, event, written);
  if (!expanded.ok()) {
    return SpecError(absl::StatusCode::kInvalidArgument, spec, pos,
                     absl::StrCat("alias \"", name, "\" of PMU ", pmu.name,
                                  " has terms this parser cannot apply: ",
                                  expanded.message()));
  }
  event.scale = alias.scale;
  event.unit = alias.unit;
  return absl::OkStatus();
}

// Applies one "name=value" or bare "name" term found at `pos` of `spec`.
absl::Status ApplyTerm(absl::string_view term, size_t pos,
                       absl::string_view spec, const Pmu& pmu,
                       bool allow_aliases, ResolvedEvent& event,
                       std::set<std::string>& written) {
  const size_t eq = term.find('=');
  const std::string name(term.substr(0, eq));
  if (name.empty()) {
    return SpecError(absl::StatusCode::kInvalidArgument, spec, pos,
                     "empty term (terms are name=value, separated by ',')");
  }
  std::optional<uint64_t> value = uint64_t{1};  // a bare term means =1
  const absl::string_view value_text =
      eq == absl::string_view::npos ? "1" : term.substr(eq + 1);
  if (eq != absl::string_view::npos) {
    value = ParseNumber(value_text);
    if (!value) {
      return SpecError(
          absl::StatusCode::kInvalidArgument, spec, pos + eq + 1,
          absl::StrCat("value \"", value_text, "\" of term \"", name,
                       "\" is not a decimal or 0x-hex number"));
    }
  }
  written.insert(name);
  if (name == "config" || name == "config1" || name == "config2") {
    *Word(event, name == "config" ? 0 : name == "config1" ? 1 : 2) = *value;
    return absl::OkStatus();
  }
  if (auto format = pmu.formats.find(name); format != pmu.formats.end()) {
    return ApplyFormatTerm(format->second, name, value_text, *value, spec,
                           pos + eq + 1, event);
  }
  auto alias = pmu.aliases.find(name);
  if (alias != pmu.aliases.end() && allow_aliases &&
      eq == absl::string_view::npos) {
    return ApplyAlias(alias->second, name, spec, pos, pmu, event, written);
  }
  const std::vector<std::string> valid = TermNames(pmu, allow_aliases);
  return SpecError(
      absl::StatusCode::kNotFound, spec, pos,
      absl::StrCat("unknown term \"", name, "\" for PMU ", pmu.name,
                   DidYouMean(NearNames(name, valid)),
                   "; valid terms and aliases: ", absl::StrJoin(valid, ", ")));
}

// Applies the terms between the slashes of pmu/terms/. `offset` is where
// `terms` starts inside `spec`. Aliases expand to their own terms (which may
// not name further aliases) and bring their .scale and .unit. `written`
// collects the names of the terms and config words set.
absl::Status ApplyTerms(absl::string_view terms, size_t offset,
                        absl::string_view spec, const Pmu& pmu,
                        bool allow_aliases, ResolvedEvent& event,
                        std::set<std::string>& written) {
  if (terms.empty()) {
    return SpecError(
        absl::StatusCode::kInvalidArgument, spec, offset,
        absl::StrCat("no terms between the slashes; write ", pmu.name,
                     "/term=value,.../ or ", pmu.name, "/alias/"));
  }
  size_t pos = offset;
  for (absl::string_view term : absl::StrSplit(terms, ',')) {
    absl::Status applied =
        ApplyTerm(term, pos, spec, pmu, allow_aliases, event, written);
    if (!applied.ok()) return applied;
    pos += term.size() + 1;
  }
  return absl::OkStatus();
}

// arm64 core PMUs let user space read an event's counter only when the
// event asks through the PMU's rdpmc format term (rdpmc=config1:1,
// drivers/perf/arm_pmuv3.c, Linux 5.17+) and kernel.perf_user_access is 1.
// x86 core PMUs have no such term (their cpu/rdpmc file decides), so this
// sets nothing there. A value the spec wrote for the term, or for the config
// word that holds it, is kept as written.
void RequestUserReads(const Pmu& core, const std::set<std::string>& written,
                      ResolvedEvent& event) {
  static constexpr const char* kWords[] = {"config", "config1", "config2"};
  auto term = core.formats.find("rdpmc");
  if (term == core.formats.end() || written.count("rdpmc") != 0) return;
  for (const BitRange& r : term->second.ranges) {
    if (written.count(kWords[r.word]) != 0) return;
  }
  Deposit(term->second, 1, event);
  event.user_read_term_set = true;
}

// pmu/terms/ with an optional modifier suffix ("/u" or "/:u").
absl::StatusOr<ResolvedEvent> ResolveSysfsSpec(absl::string_view spec,
                                               const PmuRegistry& pmus) {
  const size_t open = spec.find('/');
  const size_t close = spec.rfind('/');
  if (close == open) {
    return SpecError(absl::StatusCode::kInvalidArgument, spec, spec.size(),
                     "missing closing '/' (sysfs events are pmu/terms/)");
  }
  const absl::string_view pmu_name = spec.substr(0, open);
  const Pmu* pmu = pmus.Find(std::string(pmu_name));
  if (pmu == nullptr) {
    const std::vector<std::string> names = pmus.Names();
    return SpecError(
        absl::StatusCode::kNotFound, spec, 0,
        absl::StrCat("no PMU named \"", pmu_name, "\" under ", pmus.root(),
                     DidYouMean(NearNames(AsStd(pmu_name), names)),
                     "; PMUs here: ", absl::StrJoin(names, ", ")));
  }
  ResolvedEvent event;
  event.spec = std::string(spec);
  event.pmu_name = pmu->name;
  event.type = pmu->type;
  event.needs_hardware_pmu = pmu->is_core;
  std::set<std::string> written;
  absl::Status applied =
      ApplyTerms(spec.substr(open + 1, close - open - 1), open + 1, spec, *pmu,
                 /*allow_aliases=*/true, event, written);
  if (!applied.ok()) return applied;
  if (pmu->is_core) {
    event.core_pmu = pmu->name;
    RequestUserReads(*pmu, written, event);
  }
  absl::string_view suffix = spec.substr(close + 1);
  size_t suffix_pos = close + 1;
  if (!suffix.empty() && suffix[0] == ':') {
    suffix.remove_prefix(1);
    ++suffix_pos;
  }
  absl::StatusOr<Modifiers> modifiers =
      ParseModifiers(suffix, spec, suffix_pos);
  if (!modifiers.ok()) return modifiers.status();
  event.modifiers = *modifiers;
  return event;
}

bool IsRawName(absl::string_view name) {
  if (name.size() < 2 || name[0] != 'r') return false;
  for (char c : name.substr(1)) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return name.size() <= 17;  // 'r' plus at most 16 hex digits
}

// On hybrid machines generic hardware and cache events name the core PMU in
// config bits 32-63 (linux/perf_event.h, PERF_PMU_TYPE_SHIFT); raw events use
// the core PMU's own type. Elsewhere the core PMU is implied. Either way the
// core PMU's rdpmc term, where it has one, asks for user-space reads.
// NOTE: on arm64 big.LITTLE the kernel accepts the PMU type bits only where
// its arm_pmu has PERF_PMU_CAP_EXTENDED_HW_TYPE (newer kernels); older ones
// refuse with ENOENT, and the PMU's own aliases (armv8_cortex_a72/cpu_cycles/)
// are the way to count there.
void TargetCorePmu(const PmuRegistry& pmus, ResolvedEvent& event) {
  const Pmu* core = pmus.CorePmu();
  if (core == nullptr) return;
  event.core_pmu = core->name;
  RequestUserReads(*core, /*written=*/{}, event);
  if (!pmus.IsHybrid()) return;
  if (event.type == PERF_TYPE_RAW) {
    event.type = core->type;
  } else {
    event.config |= uint64_t{core->type} << PERF_PMU_TYPE_SHIFT;
  }
  event.pmu_name = core->name;
}

absl::StatusOr<ResolvedEvent> ResolveNamedSpec(absl::string_view spec,
                                               const PmuRegistry& pmus) {
  absl::string_view name = spec;
  Modifiers modifiers;
  if (const size_t colon = spec.rfind(':'); colon != absl::string_view::npos) {
    name = spec.substr(0, colon);
    absl::StatusOr<Modifiers> parsed =
        ParseModifiers(spec.substr(colon + 1), spec, colon + 1);
    if (!parsed.ok()) return parsed.status();
    modifiers = *parsed;
    if (!modifiers.explicit_) {
      return SpecError(absl::StatusCode::kInvalidArgument, spec, colon + 1,
                       "nothing after ':' (valid modifiers: u, k, uk)");
    }
  }
  ResolvedEvent event;
  event.spec = std::string(spec);
  event.modifiers = modifiers;
  if (std::optional<NamedEvent> named = FindNamedEvent(AsStd(name))) {
    event.type = named->type;
    event.config = named->config;
    event.needs_hardware_pmu = IsHardwareType(named->type);
    event.pmu_name = named->type == PERF_TYPE_HARDWARE   ? "hardware"
                     : named->type == PERF_TYPE_HW_CACHE ? "hw_cache"
                                                         : "software";
  } else if (IsRawName(name)) {
    event.type = PERF_TYPE_RAW;
    event.config = *ParseNumber(absl::StrCat("0x", name.substr(1)));
    event.needs_hardware_pmu = true;
    event.pmu_name = "raw";
  } else {
    std::vector<std::string> near =
        NearNames(AsStd(name), KnownEventNames(pmus));
    // "tsc" should suggest "msr/tsc/": compare against the alias part too.
    for (const std::string& pmu_name : pmus.Names()) {
      const Pmu* pmu = pmus.Find(pmu_name);
      const std::string full = absl::StrCat(pmu_name, "/", name, "/");
      if (pmu->aliases.count(std::string(name)) != 0 &&
          std::find(near.begin(), near.end(), full) == near.end()) {
        near.insert(near.begin(), full);
      }
    }
    return SpecError(
        absl::StatusCode::kNotFound, spec, 0,
        absl::StrCat("unknown event \"", name, "\"", DidYouMean(near),
                     "; valid: generic hardware (cycles, instructions, ...), "
                     "cache (L1-dcache-load-misses, ...), software "
                     "(task-clock, page-faults, ...), raw rNNNN, or "
                     "pmu/term=value/ and pmu/alias/ from ",
                     pmus.root()));
  }
  if (event.needs_hardware_pmu) TargetCorePmu(pmus, event);
  return event;
}

}  // namespace

absl::StatusOr<ResolvedEvent> ResolveEvent(std::string_view spec_text,
                                           const PmuRegistry& pmus) {
  const absl::string_view spec = AsAbsl(spec_text);
  if (spec.empty()) {
    return absl::InvalidArgumentError(
        "empty event spec; name an event such as task-clock or msr/tsc/");
  }
  for (size_t i = 0; i < spec.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(spec[i]);
    if (absl::ascii_isspace(c) || !absl::ascii_isprint(c)) {
      return SpecError(absl::StatusCode::kInvalidArgument, spec, i,
                       "whitespace or control character inside the spec");
    }
  }
  if (spec.find('/') != absl::string_view::npos) {
    return ResolveSysfsSpec(spec, pmus);
  }
  return ResolveNamedSpec(spec, pmus);
}

std::vector<std::string> SplitEventList(std::string_view specs_text) {
  const absl::string_view specs = AsAbsl(specs_text);
  std::vector<std::string> out;
  bool inside_pmu = false;  // between the slashes of pmu/.../
  size_t start = 0;
  for (size_t i = 0; i <= specs.size(); ++i) {
    if (i < specs.size() && specs[i] == '/') inside_pmu = !inside_pmu;
    if (i == specs.size() || (specs[i] == ',' && !inside_pmu)) {
      out.emplace_back(
          absl::StripAsciiWhitespace(specs.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

absl::StatusOr<std::vector<ResolvedEvent>> ResolveEventList(
    std::string_view specs_text, const PmuRegistry& pmus) {
  const absl::string_view specs = AsAbsl(specs_text);
  std::vector<ResolvedEvent> events;
  std::set<std::string> seen;
  for (const std::string& spec : SplitEventList(specs_text)) {
    if (spec.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "event list \"", specs,
          "\" has an empty entry; separate events with single commas, e.g. "
          "task-clock,page-faults"));
    }
    if (!seen.insert(spec).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("event list \"", specs, "\" names \"", spec,
                       "\" twice; each event is one JSON field, list it once"));
    }
    absl::StatusOr<ResolvedEvent> event = ResolveEvent(spec, pmus);
    if (!event.ok()) return event.status();
    events.push_back(*std::move(event));
  }
  return events;
}

std::vector<std::string> KnownEventNames(const PmuRegistry& pmus) {
  std::vector<std::string> names;
  for (const NamedEvent& e : AllNamedEvents()) names.push_back(e.name);
  for (const std::string& pmu_name : pmus.Names()) {
    for (const auto& [alias, unused] : pmus.Find(pmu_name)->aliases) {
      names.push_back(absl::StrCat(pmu_name, "/", alias, "/"));
    }
  }
  return names;
}

}  // namespace pmubench::perf
