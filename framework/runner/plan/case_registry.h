// The PMU cases registered so far: what each registration asked for (name,
// source file, its own event list) and the body to run. Registration
// (registration.h) adds to it; Prepare (session.h) reads it to plan. Nothing
// here decides what a case counts.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_REGISTRY_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_REGISTRY_H_

#include <benchmark/benchmark.h>

#include <functional>
#include <vector>

#include "framework/runner/plan/case_request.h"

namespace pmubench {

class State;

namespace internal {

using CaseBody = std::function<void(State&)>;

// One registered PMU case.
struct Case {
  CaseRequest request;  // name, file and the case's own event list
  CaseBody body;
  int index = 0;  // position in registration order
  // What Google Benchmark registered for it (the profiling pass re-runs
  // the case through it); null until registration finishes.
  benchmark::internal::Benchmark* family = nullptr;
};

// Adds a case (from static initializers: the registry is function-local, so
// it is constructed whichever translation unit registers first). The pointer
// stays valid for the life of the process.
const Case* AddCase(CaseRequest request, CaseBody body);

// Records what Google Benchmark registered for `registered`.
void SetCaseFamily(const Case& registered,
                   benchmark::internal::Benchmark* family);

// Every PMU case registered so far, in registration order. Each case's
// request.name is its name as Google Benchmark runs it now: a case renamed
// with ->Name() after registration carries its new name (the name of its
// runs, run_name.function_name), so planning, the console and the profiling
// pass find it under that name.
std::vector<const Case*> RegisteredCases();

// Their requests, in registration order (the planning input), names as
// above.
std::vector<CaseRequest> RegisteredRequests();

}  // namespace internal
}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_REGISTRY_H_
