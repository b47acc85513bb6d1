#include "framework/runner/plan/family_fit.h"

#include <benchmark/benchmark.h>

#include "framework/runner/plan/case_registry.h"

namespace pmubench::internal {
namespace {

// Google Benchmark 1.7.1 keeps ->Complexity()'s setting private, with no
// getter. An explicit instantiation may name a private member (C++20
// [temp.spec.general]/6): the ones below hand out pointers to
// Benchmark::complexity_ and complexity_lambda_, checked by the compiler
// against the installed header (as case_registry.cc reads name_).
using ComplexityMember = benchmark::BigO benchmark::internal::Benchmark::*;
using LambdaMember = benchmark::BigOFunc* benchmark::internal::Benchmark::*;
ComplexityMember FitMember();
LambdaMember FitLambdaMember();
template <ComplexityMember kMember>
struct ComplexityAccess {
  friend ComplexityMember FitMember() { return kMember; }
};
template struct ComplexityAccess<&benchmark::internal::Benchmark::complexity_>;
template <LambdaMember kMember>
struct LambdaAccess {
  friend LambdaMember FitLambdaMember() { return kMember; }
};
template struct LambdaAccess<
    &benchmark::internal::Benchmark::complexity_lambda_>;

}  // namespace

bool FamilyMustStayWhole(std::string_view family) {
  bool found = false;
  for (const Case* c : RegisteredCases()) {
    if (c->family == nullptr || c->request.name != family) continue;
    found = true;
    if (c->family->*FitMember() != benchmark::oNone ||
        c->family->*FitLambdaMember() != nullptr) {
      return true;
    }
  }
  return !found;
}

}  // namespace pmubench::internal
