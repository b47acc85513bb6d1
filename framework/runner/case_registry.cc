#include "framework/runner/case_registry.h"

#include <memory>
#include <utility>

namespace pmubench::internal {
namespace {

std::vector<std::unique_ptr<Case>>& Cases() {
  static auto* cases = new std::vector<std::unique_ptr<Case>>();
  return *cases;
}

}  // namespace

const Case* AddCase(CaseRequest request, CaseBody body) {
  auto added = std::make_unique<Case>();
  added->request = std::move(request);
  added->body = std::move(body);
  added->index = static_cast<int>(Cases().size());
  Cases().push_back(std::move(added));
  return Cases().back().get();
}

void SetCaseFamily(const Case& registered,
                   benchmark::internal::Benchmark* family) {
  Cases()[registered.index]->family = family;
}

std::vector<const Case*> RegisteredCases() {
  std::vector<const Case*> cases;
  for (const auto& c : Cases()) cases.push_back(c.get());
  return cases;
}

std::vector<CaseRequest> RegisteredRequests() {
  std::vector<CaseRequest> requests;
  for (const auto& c : Cases()) requests.push_back(c->request);
  return requests;
}

}  // namespace pmubench::internal
