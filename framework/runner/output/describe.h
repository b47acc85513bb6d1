// The describing step: typed facts about a run (what each event set counts,
// how each event was opened and is read, what overhead is subtracted, what
// fell back and why) and the two texts made from them: the pmubench_* JSON
// context pairs and the console header. Both formatters read the facts;
// neither parses the other's text.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_DESCRIBE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_DESCRIBE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/perf/counting/counter_group.h"
#include "framework/runner/output/version.h"
#include "framework/runner/plan/event_set.h"
#include "framework/runner/plan/plan.h"

namespace pmubench {

// framework/runner/output/version.h holds the number, for both builds.
inline constexpr char kVersion[] = PMUBENCH_VERSION;

namespace internal {

struct EventFacts {
  std::string spec = "";      // as spelled: the JSON field
  std::string pmu_name = "";  // "cpu", "software", "msr", ...
  uint32_t type = 0;          // perf_event_attr.type and .config as opened
  uint64_t config = 0;
  perf::ReadMethod read_method = perf::ReadMethod::kRead;
  // Why the event is read with read(2) rather than in user space; empty when
  // it is read in user space or the perf layer gives no reason.
  std::string read_fallback_reason = "";
  bool counts_kernel = false;  // perf_event_attr.exclude_kernel == 0
  bool needs_hardware_pmu = false;
};

struct SetFacts {
  std::vector<EventFacts> events;
  std::vector<double> overhead;      // per event, subtracted per batch
  std::vector<std::string> derived;  // derived metric names, in order
  // A set split into groups that take turns: each group's spec list, in
  // turn order (the first is timed). Empty: the set is one group.
  std::vector<std::string> groups;
  std::string SpecList() const;  // "a,b,c"
};

// A run counted by callgrind (simulation_session.h) instead of a PMU.
struct SimulationFacts {
  std::string valgrind;             // "valgrind-3.19.0"
  std::string geometry;             // "I1=32768,8,64 D1=... LL=..." or "none"
  std::vector<std::string> fields;  // "callgrind/instructions/", ratios last
  int64_t iterations = 0;           // n: segments of w, n and 2n steps
  // False where simulate/simulator_reset.h cannot set the branch
  // predictors between batches (an architecture other than x86-64, arm64).
  bool predictors_reset = true;
  // False in a build without the fresh heap (measure/fresh_heap.h).
  bool fresh_heap = true;
};

// Under cache simulation, what is put in a fixed state before each batch:
// "caches,branch_predictors", or "caches" where the predictors are not;
// "" without cache simulation (nothing to reset).
std::string SimulatorResetText(const SimulationFacts& sim);
// The line said once (stderr, pmubench_notice) when the predictors are not
// reset under cache simulation; "" otherwise.
std::string SimulatorResetNotice(const SimulationFacts& sim);
// The line said once when the build has no fresh heap; "" otherwise.
std::string FreshHeapNotice(const SimulationFacts& sim);

struct RunFacts {
  std::vector<std::string> pmus;  // PMU names under sysfs
  std::vector<SetFacts> sets;     // every set that will run, in plan order
  bool pinned = true;             // leaders opened with attr.pinned
  bool exclude_kernel = true;     // the default for events without :u/:k
  // family -> source file base name, for pmubench_case_files.
  std::vector<std::pair<std::string, std::string>> case_files;
  std::vector<std::string> notices;  // one line each
  // Set when callgrind counts; `sets` is empty then.
  std::optional<SimulationFacts> simulation;
};

// The facts of one opened set (its probe succeeded).
SetFacts DescribeSet(const EventSet& set, const SetProbe& probe);

// Each registered case's family (its name up to the first '/': the function
// of PMU_BENCHMARK_CAPTURE, the base class of a fixture) once, with the base
// name of its source file without extension.
std::vector<std::pair<std::string, std::string>> CaseFiles(
    const std::vector<CaseRequest>& cases);

// "pmubench: hardware events are read with read(2) ...: REASON", once, when
// some hardware event is not read in user space; else "".
std::string ReadFallbackNotice(const RunFacts& facts);

// The pmubench_* context pairs, in a fixed order: pmubench_version,
// pmubench_pmus, pmubench_events, pmubench_pinned, pmubench_exclude_kernel,
// pmubench_read_overhead, pmubench_case_files, pmubench_backend
// ("perf_event"), when a set was split into groups that take turns
// pmubench_groups ("{a,b} {c,d}", sets joined by "; ") with
// pmubench_runs_per_batch (how often each batch of such a set runs: once
// per group, or 1 with --pmubench_multiplex) and, with notices,
// pmubench_notice (one line: Google
// Benchmark prints values as they are). Under callgrind: pmubench_version,
// pmubench_backend ("callgrind"), pmubench_valgrind,
// pmubench_cache_geometry, pmubench_events, pmubench_simulated_iterations,
// with cache simulation pmubench_simulator_reset (SimulatorResetText),
// pmubench_fresh_heap ("on" or "off"),
// pmubench_case_files and pmubench_notice.
std::vector<std::pair<std::string, std::string>> ContextPairs(
    const RunFacts& facts);

// The lines the console prints after Google Benchmark's context: what is
// counted and read how ("read with read(2)", "read in user space (rdpmc)"),
// the overhead subtracted per batch (an empty range-for batch through
// State) with units, and the notices.
std::string ConsoleHeader(const RunFacts& facts);

// Every run field pmubench writes (events, derived metrics,
// pmu_running_fraction), in set order, each once.
std::vector<std::string> CounterNames(const RunFacts& facts);

}  // namespace internal

// What Prepare (session.h) decided, as the reporters read it.
struct SessionInfo {
  // What the run counts and how: the console reporter reads these.
  internal::RunFacts facts;
  // Empty, or the notices, one line each: why events were replaced or
  // dropped, why some cases run without counters.
  std::string notice;
  // pmubench_* keys for the JSON context (benchmark::AddCustomContext):
  // internal::ContextPairs(facts). pmubench_case_files is
  // "BM_A=branch_prediction;Base=containers" (reports/plot.py groups plots
  // by it); "none" without cases.
  std::vector<std::pair<std::string, std::string>> context;
  // Every run field pmubench writes (events, derived metrics,
  // pmu_running_fraction), in event-set order, each once.
  std::vector<std::string> counter_names;
  // By case name: the fields of the set the case counts, in set order
  // (events, then derived metrics). Cases that count nothing are absent.
  std::map<std::string, std::vector<std::string>> fields_by_case;
};

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_DESCRIBE_H_
