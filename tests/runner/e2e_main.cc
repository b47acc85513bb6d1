// main() of runner_e2e_tests (e2e_*_test.cc): --e2e_cases=PATH names the
// binary the tests run (cases_binary.h).
#include "gtest/gtest.h"
#include "tests/runner/cases_binary.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  return RUN_ALL_TESTS();
}
