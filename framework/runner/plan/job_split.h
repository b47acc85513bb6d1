// The units of work of a split run (--pmubench_jobs workers, run/jobs_run.h;
// --pmubench_shard, shard.h) and the order workers take them in. Pure.
//
// A unit is what one process runs in one go: one instance, or a whole
// family when its instances must run together (family_fit.h: a complexity
// fit covers the instances one run ran). Workers take the next unit when
// they finish one, so none idles while work is left; the biggest units go
// first when their costs are known (run_costs.h), as a greedy
// longest-first schedule balances machines.
//
//   std::vector<Unit> units = WorkUnits(names, FamilyMustStayWhole);
//   for (size_t u : DispatchOrder(units, costs)) ... hand units[u] out ...
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_JOB_SPLIT_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_JOB_SPLIT_H_

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmubench::internal {

// The family of instance `name`: its name up to the first '/'.
std::string_view FamilyOf(std::string_view name);

// A unit's instances, in registration order.
using Unit = std::vector<std::string>;

// `instances` (in registration order) as units, in the order of their first
// instance: each instance alone, but every family for which
// `keep_whole(family)` is true in one unit. A name two registrations share
// is one instance (a filter of names selects both), where it first appears.
std::vector<Unit> WorkUnits(
    const std::vector<std::string>& instances,
    const std::function<bool(std::string_view)>& keep_whole);

// A unit's cost: the sum of its instances' costs; nullopt when `costs`
// names none of them.
std::optional<double> UnitCost(const Unit& unit,
                               const std::map<std::string, double>& costs);

// The indices of `units` in the order workers take them. Without costs:
// registration order. With costs: the units the costs do not price first
// (new cases of unknown length are not left to the end), then the others
// longest first; ties keep registration order.
std::vector<size_t> DispatchOrder(
    const std::vector<Unit>& units,
    const std::optional<std::map<std::string, double>>& costs);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_JOB_SPLIT_H_
