// What a registered case asked for: its name, source file and own event
// list, as the registration macros record it (case_registry.h) and planning
// reads it (plan.h). Apart so that registration, which every case file
// includes, needs none of the planning.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_REQUEST_H_
#define PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_REQUEST_H_

#include <string>

namespace pmubench::internal {

struct CaseRequest {
  // As registered ("BM_X", "BM_X/label", "Base/Method") or as ->Name()
  // renamed it: the function_name of the case's runs.
  std::string name;
  std::string file;      // __FILE__ of the registration
  std::string counters;  // as written; "" for the default set
};

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_PLAN_CASE_REQUEST_H_
