#include "framework/runner/plan/case_seconds.h"

#include <map>

namespace pmubench::internal {
namespace {

std::map<std::string, double>& CaseSeconds() {
  static auto* seconds = new std::map<std::string, double>();
  return *seconds;
}

}  // namespace

void AddCaseSeconds(const std::string& run_name, double seconds) {
  CaseSeconds()[run_name] = seconds;
}

std::optional<double> FindCaseSeconds(const std::string& run_name) {
  const auto& seconds = CaseSeconds();
  auto it = seconds.find(run_name);
  if (it == seconds.end()) return std::nullopt;
  return it->second;
}

}  // namespace pmubench::internal
