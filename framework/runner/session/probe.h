// The checking half of the opening step: before any benchmark runs, each
// event set that will run is opened once on the calling thread, checked,
// calibrated and closed again, one set at a time, so that what the machine
// refuses (an event its PMU lacks, a pinned group that does not fit, a user
// who may not count) is known before the first batch. What the probe learns
// (per event: the attr as opened, its read method; the overhead of an empty
// start/stop pair) feeds ApplyProbes (plan.h) and the run's description
// (describe.h). The groups the batches use are opened later, per thread,
// by thread_groups.h.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SESSION_PROBE_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SESSION_PROBE_H_

#include "framework/runner/plan/event_set.h"
#include "framework/runner/plan/plan.h"

namespace pmubench::internal {

// Opens `set` on the calling thread, checks its health, calibrates it and
// closes it. When the open fails with NotFound, each event is opened alone
// to name the ones the PMU lacks (SetProbe::not_found).
SetProbe ProbeSet(const EventSet& set);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SESSION_PROBE_H_
