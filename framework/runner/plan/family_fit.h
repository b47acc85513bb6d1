// Whether a family's instances may run in different processes: Google
// Benchmark fits a family's complexity (->Complexity(): BigO, RMS) over the
// instances one RunSpecifiedBenchmarks call ran, once the last of them has
// run, so a family with a fit must run whole in one call; any other family
// may be split per instance (--pmubench_jobs units, --pmubench_shard).
//
//   WorkUnits(instances, FamilyMustStayWhole);   // plan/job_split.h
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_FAMILY_FIT_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_FAMILY_FIT_H_

#include <string_view>

namespace pmubench::internal {

// False only for a registered PMU case named `family` whose Google Benchmark
// family has no complexity fit. A family pmubench did not register (a plain
// BENCHMARK) stays whole: its settings are not known here.
bool FamilyMustStayWhole(std::string_view family);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_FAMILY_FIT_H_
