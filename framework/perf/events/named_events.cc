#include "framework/perf/events/named_events.h"

#include <linux/perf_event.h>

#include "absl/strings/match.h"
#include "framework/perf/system/string_view_bridge.h"

namespace pmubench::perf {
namespace {

struct Alias {
  const char* alias;
  const char* canonical;
};

// perf's other spellings of the same events (tools/perf/util/parse-events.c,
// event_symbols_hw and event_symbols_sw).
constexpr Alias kAliases[] = {
    {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
    {"idle-cycles-frontend", "stalled-cycles-frontend"},
    {"idle-cycles-backend", "stalled-cycles-backend"},
    {"faults", "page-faults"},
    {"cs", "context-switches"},
    {"migrations", "cpu-migrations"},
};

void AddGeneric(std::vector<NamedEvent>& out) {
  const std::pair<const char*, uint64_t> kGeneric[] = {
      {"cycles", PERF_COUNT_HW_CPU_CYCLES},
      {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
      {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
      {"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
      {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
      {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
      {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES},
      {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
      {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
      {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
  };
  for (const auto& [name, config] : kGeneric) {
    out.push_back({name, PERF_TYPE_HARDWARE, config});
  }
}

// Cache events: config = cache_id | (op_id << 8) | (result_id << 16)
// (perf_event_open(2), PERF_TYPE_HW_CACHE). Names as `perf list hwcache`
// prints them: <cache>-<op>s for accesses, <cache>-<op>-misses for misses.
void AddCache(std::vector<NamedEvent>& out) {
  const std::pair<const char*, uint64_t> kCaches[] = {
      {"L1-dcache", PERF_COUNT_HW_CACHE_L1D},
      {"L1-icache", PERF_COUNT_HW_CACHE_L1I},
      {"LLC", PERF_COUNT_HW_CACHE_LL},
      {"dTLB", PERF_COUNT_HW_CACHE_DTLB},
      {"iTLB", PERF_COUNT_HW_CACHE_ITLB},
      {"branch", PERF_COUNT_HW_CACHE_BPU},
      {"node", PERF_COUNT_HW_CACHE_NODE},
  };
  struct Op {
    const char* singular;
    const char* plural;
    uint64_t id;
  };
  const Op kOps[] = {
      {"load", "loads", PERF_COUNT_HW_CACHE_OP_READ},
      {"store", "stores", PERF_COUNT_HW_CACHE_OP_WRITE},
      {"prefetch", "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH},
  };
  for (const auto& [cache, cache_id] : kCaches) {
    for (const Op& op : kOps) {
      const uint64_t base = cache_id | (op.id << 8);
      out.push_back(
          {std::string(cache) + "-" + op.plural, PERF_TYPE_HW_CACHE,
           base | (uint64_t{PERF_COUNT_HW_CACHE_RESULT_ACCESS} << 16)});
      out.push_back({std::string(cache) + "-" + op.singular + "-misses",
                     PERF_TYPE_HW_CACHE,
                     base | (uint64_t{PERF_COUNT_HW_CACHE_RESULT_MISS} << 16)});
    }
  }
}

void AddSoftware(std::vector<NamedEvent>& out) {
  const std::pair<const char*, uint64_t> kSoftware[] = {
      {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
      {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
      {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
      {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
      {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
      {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
      {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
      {"dummy", PERF_COUNT_SW_DUMMY},
      {"bpf-output", PERF_COUNT_SW_BPF_OUTPUT},
      {"cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES},
  };
  for (const auto& [name, config] : kSoftware) {
    out.push_back({name, PERF_TYPE_SOFTWARE, config});
  }
}

std::vector<NamedEvent> BuildTable() {
  std::vector<NamedEvent> table;
  AddGeneric(table);
  AddCache(table);
  AddSoftware(table);
  return table;
}

}  // namespace

const std::vector<NamedEvent>& AllNamedEvents() {
  static const std::vector<NamedEvent>* const kTable =
      new std::vector<NamedEvent>(BuildTable());
  return *kTable;
}

std::optional<NamedEvent> FindNamedEvent(std::string_view name) {
  for (const Alias& a : kAliases) {
    if (name == a.alias) {
      name = a.canonical;
      break;
    }
  }
  for (const NamedEvent& e : AllNamedEvents()) {
    if (e.name == name) return e;
  }
  for (const NamedEvent& e : AllNamedEvents()) {
    if (e.type == PERF_TYPE_HW_CACHE &&
        absl::EqualsIgnoreCase(e.name, AsAbsl(name))) {
      return e;
    }
  }
  return std::nullopt;
}

bool IsHardwareType(uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
         type == PERF_TYPE_RAW;
}

}  // namespace pmubench::perf
