// The planning step of a run: which event set each registered PMU case
// counts. Pure: no perf_event_open, no Google Benchmark; the inputs are the
// registered cases, the run options and a perf::PmuRegistry (a synthetic
// sysfs tree in tests).
//
//   absl::StatusOr<Plan> plan = MakePlan(cases, options, pmus);
//   ... probe each set that will run (probe.h) ...
//   absl::StatusOr<bool> changed = ApplyProbes(*plan, probes, pmus);
//
// MakePlan decides, per case:
//   --counters=none            no set (counting off);
//   --counters=SPEC,...        that list for every case (explicit: any
//                              failure is an error, exit 2);
//   the case's own list        PMU_BENCHMARK_WITH_COUNTERS ("none": no set);
//   otherwise                  the default set, kHardwareDefaultEvents.
// Without a hardware PMU (PmuRegistry::HasHardwarePmu) the default set and a
// case's own list that needs one become kSoftwareDefaultEvents, with one
// notice; an explicit list that needs one is an error.
//
// ApplyProbes then revises the plan from what opening each set taught (the
// machine's answer, which only a syscall can give): events the PMU lacks
// (NotFound) are dropped from the default set and from a case's own list,
// with one notice per set; sets this user may not open (PermissionDenied)
// leave their cases uncounted, and one notice names every refused set and
// the cases it affects. Revised sets must be probed again.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_PLAN_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_PLAN_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/perf/counting/counter_group.h"
#include "framework/perf/events/pmu.h"
#include "framework/runner/cli/simulation_options.h"
#include "framework/runner/plan/case_request.h"
#include "framework/runner/plan/event_set.h"

namespace pmubench {

struct RunOptions {
  // "" = each case's own list or the default; "none" = counting off;
  // otherwise a comma-separated spec list for every case.
  std::string counters = "";
  // False forces read(2) for every snapshot (--pmubench_no_rdpmc).
  bool use_rdpmc = true;
  // --pmubench_multiplex: groups are not pinned, and a set split into
  // groups counts them all at once, rotated by the kernel and scaled by
  // their running fractions, instead of one group per run of the batch.
  bool multiplex = false;
  // Which cases will run (--benchmark_filter syntax); nullopt: Google
  // Benchmark's current --benchmark_filter. Sets of cases that cannot match
  // are neither checked nor opened.
  std::optional<std::string> filter = std::nullopt;
  // --pmubench_simulate's options; under callgrind the run is counted by it
  // (simulation_session.h) with these, or with the defaults when the user
  // started callgrind without the flag.
  std::optional<internal::SimulationOptions> simulate = std::nullopt;
};

namespace internal {

struct PlannedSet {
  EventSet set;
  // Where the list came from, for errors and notices: "--counters=...",
  // "the default events", "PMU_BENCHMARK_WITH_COUNTERS(BM_X, \"...\")".
  std::string origin;
  bool is_explicit = false;  // from --counters: a failure is an error
  bool is_default = false;   // the hardware default set
  bool will_run = false;     // some case of it matches the filter
  bool probed = false;       // ApplyProbes has seen its probe
  std::vector<int> cases;    // indices into the case list
  // A set that does not fit one pinned group, split into groups that take
  // turns (group_split.h): each group's own set, in turn order. Empty: one
  // group.
  std::vector<EventSet> groups;
};

inline constexpr int kNoSet = -1;

struct Plan {
  std::vector<std::string> case_names;  // per case, as registered
  std::vector<PlannedSet> sets;
  std::vector<int> case_set;         // per case: an index into sets, or kNoSet
  std::vector<std::string> notices;  // one line each, "pmubench: ..."
  // Where the core PMU of a hybrid machine counts: the measuring thread is
  // pinned there before it opens a group. Empty: no pinning.
  std::string pinned_pmu;
  std::vector<int> pinned_cpus;
};

// What opening one set taught (probe.h fills it; tests write it by hand).
struct SetProbe {
  absl::Status status;  // of opening the whole set
  // When status is NotFound: indices of the events that fail alone with
  // NotFound (the PMU lacks them).
  std::vector<int> not_found;
  // When status is OK: the facts of each opened event and the calibrated
  // overhead of an empty start/stop pair.
  std::vector<perf::OpenedEvent> opened;
  std::vector<double> overhead;
  // When the set did not fit one pinned group and was split (status OK, each
  // group opened and calibrated; `opened` and `overhead` are per event of
  // the whole set, in its order): the groups, and the derived metrics whose
  // inputs fit no group together.
  std::vector<std::vector<int>> groups;
  std::vector<std::string> underived;
};

// Decides every case's set. Errors name the list's origin and the spec.
absl::StatusOr<Plan> MakePlan(const std::vector<CaseRequest>& cases,
                              const RunOptions& options,
                              const perf::PmuRegistry& pmus);

// Revises `plan` from `probes` (parallel to plan.sets; a nullopt entry was
// not probed). Returns whether some set changed and needs a new probe. A
// split probe's groups are kept in the set, with one notice per derived
// metric that its split leaves out.
// Errors: an explicit set that failed, or any failure other than NotFound
// or PermissionDenied (a malformed attr, more events than counters).
absl::StatusOr<bool> ApplyProbes(
    Plan& plan, const std::vector<std::optional<SetProbe>>& probes);

// Whether a case registered as `name` may run under `filter`
// (--benchmark_filter syntax: a POSIX extended regex searched in the run
// name, a leading '-' negates; "" and "all" match everything). Errs on the
// side of true: run names extend the registered name ("BM_X/8/threads:2").
bool MayRun(const std::string& name, const std::string& filter);

}  // namespace internal
}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_PLAN_H_
