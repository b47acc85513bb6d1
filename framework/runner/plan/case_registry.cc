#include "framework/runner/plan/case_registry.h"

#include <memory>
#include <string>
#include <utility>

namespace pmubench::internal {
namespace {

std::vector<std::unique_ptr<Case>>& Cases() {
  static auto* cases = new std::vector<std::unique_ptr<Case>>();
  return *cases;
}

// Google Benchmark 1.7.1 keeps a family's name private, with no getter (1.8
// adds Benchmark::GetName()), and ->Name() may change it after registration.
// An explicit instantiation may name a private member (C++20
// [temp.spec.general]/6): the one below hands out a pointer to
// Benchmark::name_, checked by the compiler against the installed header.
using FamilyNameMember = std::string benchmark::internal::Benchmark::*;
FamilyNameMember NameMember();
template <FamilyNameMember kMember>
struct FamilyNameAccess {
  friend FamilyNameMember NameMember() { return kMember; }
};
template struct FamilyNameAccess<&benchmark::internal::Benchmark::name_>;

// The case's name as Google Benchmark runs it: as registered, or as
// ->Name() renamed it. Written only when it changed, so that reading a
// case's name while its threads run is no data race.
void RefreshName(Case& c) {
  if (c.family == nullptr) return;
  const std::string& current = c.family->*NameMember();
  if (c.request.name != current) c.request.name = current;
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
  for (const auto& c : Cases()) {
    RefreshName(*c);
    cases.push_back(c.get());
  }
  return cases;
}

std::vector<CaseRequest> RegisteredRequests() {
  std::vector<CaseRequest> requests;
  for (const auto& c : Cases()) {
    RefreshName(*c);
    requests.push_back(c->request);
  }
  return requests;
}

}  // namespace pmubench::internal
