#include "framework/runner/plan/job_split.h"

#include "framework/runner/plan/shard.h"

namespace pmubench::internal {

std::string_view FamilyOf(std::string_view name) {
  return name.substr(0, name.find('/'));
}

std::vector<std::vector<std::string>> SplitJobs(
    const std::vector<std::string>& instances, int jobs,
    const std::optional<std::map<std::string, double>>& costs) {
  std::vector<std::string> families;
  std::optional<std::map<std::string, double>> family_costs;
  if (costs.has_value()) family_costs.emplace();
  for (const std::string& name : instances) {
    const std::string family(FamilyOf(name));
    if (families.empty() || families.back() != family) {
      families.push_back(family);
    }
    // A family the costs do not name at all stays uncosted (placed by count).
    if (!costs.has_value()) continue;
    if (auto it = costs->find(name); it != costs->end()) {
      (*family_costs)[family] += it->second;
    }
  }
  std::map<std::string, int> worker_of;
  for (int w = 0; w < jobs; ++w) {
    for (const std::string& family :
         SelectShard(families, Shard{w + 1, jobs}, family_costs).names) {
      worker_of[family] = w;
    }
  }
  std::vector<std::vector<std::string>> parts(jobs);
  for (const std::string& name : instances) {
    parts[worker_of[std::string(FamilyOf(name))]].push_back(name);
  }
  return parts;
}

}  // namespace pmubench::internal
