#include "framework/runner/api/registration.h"

#include <utility>

#include "framework/runner/run/case_runner.h"

namespace pmubench::internal {

benchmark::internal::Benchmark* RegisterCase(const char* name, CaseBody body,
                                             const char* counters,
                                             const char* file) {
  CaseRequest request;
  request.name = name;
  request.file = file == nullptr ? "" : file;
  request.counters = counters == nullptr ? "" : counters;
  const Case* pmu_case = AddCase(std::move(request), std::move(body));
  benchmark::internal::Benchmark* family = benchmark::RegisterBenchmark(
      name, [pmu_case](benchmark::State& gb_state) {
        CaseRunner::RunBatch(gb_state, *pmu_case);
      });
  SetCaseFamily(*pmu_case, family);
  return family;
}

}  // namespace pmubench::internal
