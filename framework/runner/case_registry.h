// The PMU cases registered so far: what each registration asked for (name,
// source file, its own event list) and the body to run. Registration
// (registration.h) adds to it; Prepare (session.h) reads it to plan. Nothing
// here decides what a case counts.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CASE_REGISTRY_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CASE_REGISTRY_H_

#include <functional>
#include <vector>

#include "framework/runner/plan.h"

namespace pmubench {

class State;

namespace internal {

using CaseBody = std::function<void(State&)>;

// One registered PMU case.
struct Case {
  CaseRequest request;  // name, file and the case's own event list
  CaseBody body;
  int index = 0;        // position in registration order
};

// Adds a case (from static initializers: the registry is function-local, so
// it is constructed whichever translation unit registers first). The pointer
// stays valid for the life of the process.
const Case* AddCase(CaseRequest request, CaseBody body);

// Every PMU case registered so far, in registration order.
std::vector<const Case*> RegisteredCases();

// Their requests, in registration order (the planning input).
std::vector<CaseRequest> RegisteredRequests();

}  // namespace internal
}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CASE_REGISTRY_H_
