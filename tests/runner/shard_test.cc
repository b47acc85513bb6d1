// Shard selection (plan/shard.h) and a previous run's costs
// (plan/run_costs.h), pure: every instance in exactly one shard, round robin
// without costs, longest first with them, uncosted instances placed by
// count, the exact-names filter, and bad --pmubench_shard values and costs
// files.
#include "framework/runner/plan/shard.h"

#include <regex.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/runner/plan/run_costs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Instances(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("BM_Case/" + std::to_string(i));
  return names;
}

// Every instance a unit of its own (no family with a complexity fit).
std::vector<Unit> Singles(const std::vector<std::string>& instances) {
  return WorkUnits(instances, [](std::string_view) { return false; });
}

TEST(ParseShardTest, AcceptsIOfN) {
  absl::StatusOr<Shard> shard = ParseShard("2/3");
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->index, 2);
  EXPECT_EQ(shard->count, 3);
}

TEST(ParseShardTest, RejectsWhatIsNotAShardNamingTheFlagAndTheFix) {
  for (const char* bad :
       {"4/3", "0/2", "x", "1/0", "2", "1/3x", "-1/3", "/3", "1/", ""}) {
    absl::StatusOr<Shard> shard = ParseShard(bad);
    ASSERT_FALSE(shard.ok()) << bad;
    EXPECT_THAT(
        shard.status().message(),
        HasSubstr(std::string("--pmubench_shard=") + bad + ": give I/N"));
  }
}

TEST(SelectShardTest, RoundRobinPutsEveryInstanceInExactlyOneShard) {
  const std::vector<std::string> all = Instances(7);
  std::multiset<std::string> seen;
  for (int i = 1; i <= 3; ++i) {
    for (const std::string& name :
         SelectShard(Singles(all), {i, 3}, std::nullopt).names) {
      seen.insert(name);
    }
  }
  EXPECT_EQ(seen, std::multiset<std::string>(all.begin(), all.end()));
  EXPECT_THAT(SelectShard(Singles(all), {2, 3}, std::nullopt).names,
              ElementsAre("BM_Case/1", "BM_Case/4"));
}

TEST(SelectShardTest, ANameTwoRegistrationsShareIsInOneShard) {
  const std::vector<std::string> all = {"BM_A", "BM_B", "BM_A", "BM_C"};
  EXPECT_THAT(SelectShard(Singles(all), {1, 2}, std::nullopt).names,
              ElementsAre("BM_A", "BM_C"));
  EXPECT_THAT(SelectShard(Singles(all), {2, 2}, std::nullopt).names,
              ElementsAre("BM_B"));
}

TEST(SelectShardTest, MoreShardsThanInstancesLeavesSomeEmpty) {
  EXPECT_TRUE(
      SelectShard(Singles(Instances(2)), {3, 3}, std::nullopt).names.empty());
}

TEST(SelectShardTest, CostsBalanceLongestFirstAndKeepRegistrationOrder) {
  // Costs 8, 1, 1, 4, 3, 1: round robin over two shards gives 8+1+3 = 12
  // against 1+4+1 = 6; longest first (8, 4, 3, then the 1s in order, each
  // to the cheaper shard, a tie to the first) gives 9 and 9.
  const std::vector<std::string> all = Instances(6);
  const std::map<std::string, double> costs = {
      {"BM_Case/0", 8}, {"BM_Case/1", 1}, {"BM_Case/2", 1},
      {"BM_Case/3", 4}, {"BM_Case/4", 3}, {"BM_Case/5", 1}};
  const ShardSelection first = SelectShard(Singles(all), {1, 2}, costs);
  const ShardSelection second = SelectShard(Singles(all), {2, 2}, costs);
  EXPECT_THAT(first.names, ElementsAre("BM_Case/0", "BM_Case/2"));
  EXPECT_THAT(second.names,
              ElementsAre("BM_Case/1", "BM_Case/3", "BM_Case/4", "BM_Case/5"));
  EXPECT_EQ(first.uncosted, 0);
}

TEST(SelectShardTest, InstancesTheCostsDoNotNameArePlacedByCount) {
  const std::vector<std::string> all = Instances(5);
  const std::map<std::string, double> costs = {{"BM_Case/0", 10},
                                               {"BM_Other", 3}};
  const ShardSelection first = SelectShard(Singles(all), {1, 2}, costs);
  const ShardSelection second = SelectShard(Singles(all), {2, 2}, costs);
  EXPECT_EQ(first.uncosted, 4);
  // BM_Case/0 on shard 1, then by count: 1 to shard 2, 2 to shard 1 (one
  // member each: the first), 3 to shard 2, 4 to shard 1.
  EXPECT_THAT(first.names, ElementsAre("BM_Case/0", "BM_Case/2", "BM_Case/4"));
  EXPECT_THAT(second.names, ElementsAre("BM_Case/1", "BM_Case/3"));
}

TEST(SelectShardTest, AFamilyKeptWholeIsInOneShardAndCostsAsItsSum) {
  const std::vector<std::string> all = {"BM_Fit/1", "BM_Fit/2", "BM_Fit/3",
                                        "BM_A", "BM_B"};
  const std::vector<Unit> units = WorkUnits(
      all, [](std::string_view family) { return family == "BM_Fit"; });
  EXPECT_THAT(SelectShard(units, {1, 2}, std::nullopt).names,
              ElementsAre("BM_Fit/1", "BM_Fit/2", "BM_Fit/3", "BM_B"));
  EXPECT_THAT(SelectShard(units, {2, 2}, std::nullopt).names,
              ElementsAre("BM_A"));
  // BM_Fit costs 1+1+1 = 3, more than BM_A's 2.5: alone on shard 1.
  const std::map<std::string, double> costs = {{"BM_Fit/1", 1},
                                               {"BM_Fit/2", 1},
                                               {"BM_Fit/3", 1},
                                               {"BM_A", 2.5},
                                               {"BM_B", 0.4}};
  EXPECT_THAT(SelectShard(units, {1, 2}, costs).names,
              ElementsAre("BM_Fit/1", "BM_Fit/2", "BM_Fit/3"));
  EXPECT_THAT(SelectShard(units, {2, 2}, costs).names,
              ElementsAre("BM_A", "BM_B"));
}

// Whether `name` matches `filter` as Google Benchmark 1.7.1 matches it: a
// POSIX extended regex searched in the name (regcomp(3)).
bool Matches(const std::string& filter, const char* name) {
  regex_t re;
  EXPECT_EQ(regcomp(&re, filter.c_str(), REG_EXTENDED | REG_NOSUB), 0);
  const bool match = regexec(&re, name, 0, nullptr, 0) == 0;
  regfree(&re);
  return match;
}

TEST(ExactNamesFilterTest, MatchesExactlyTheNamesEscaped) {
  const std::string filter =
      ExactNamesFilter({"BM_A/8", "BM_B<int>/threads:2", "BM_C(x).y"});
  for (const char* name : {"BM_A/8", "BM_B<int>/threads:2", "BM_C(x).y"}) {
    EXPECT_TRUE(Matches(filter, name)) << name;
  }
  for (const char* name : {"BM_A/80", "BM_A", "xBM_A/8", "BM_C(x)Xy"}) {
    EXPECT_FALSE(Matches(filter, name)) << name;
  }
}

constexpr char kRun[] = R"({
  "context": {"date": "x", "pmubench_backend": "callgrind"},
  "benchmarks": [
    {"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration",
     "iterations": 1000, "real_time": 2.0e3, "time_unit": "ns"},
    {"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration",
     "iterations": 1000, "real_time": 2.0e3, "time_unit": "ns"},
    {"name": "BM_A/8_mean", "run_name": "BM_A/8", "run_type": "aggregate",
     "iterations": 2, "real_time": 2.0e3, "time_unit": "ns"},
    {"name": "BM_B", "run_name": "BM_B", "run_type": "iteration",
     "iterations": 3, "real_time": 0.5, "time_unit": "s", "label": "[a] \"q\""}
  ]
})";

TEST(ParseRunCostsTest, SumsEachInstancesRepetitionsInSeconds) {
  absl::StatusOr<std::map<std::string, double>> costs =
      ParseRunCosts(kRun, "run.json");
  ASSERT_TRUE(costs.ok()) << costs.status();
  EXPECT_EQ(costs->size(), 2u);
  EXPECT_DOUBLE_EQ(costs->at("BM_A/8"), 2 * 1000 * 2e3 * 1e-9);
  EXPECT_DOUBLE_EQ(costs->at("BM_B"), 1.5);
}

// A row with the case's whole time ("pmubench_case_seconds") costs that,
// once per instance however many repetitions carry it; a row without it
// in the same file costs its measured runs.
TEST(ParseRunCostsTest, ACasesWholeSecondsWinOverItsMeasuredRuns) {
  constexpr char kWhole[] = R"({
  "context": {"date": "x"},
  "benchmarks": [
    {"name": "BM_A", "run_name": "BM_A", "run_type": "iteration",
     "iterations": 10, "real_time": 1.0, "time_unit": "s",
     "pmubench_case_seconds": 42.5},
    {"name": "BM_A", "run_name": "BM_A", "run_type": "iteration",
     "iterations": 10, "real_time": 1.0, "time_unit": "s",
     "pmubench_case_seconds": 42.5},
    {"name": "BM_A_mean", "run_name": "BM_A", "run_type": "aggregate",
     "iterations": 2, "real_time": 1.0, "time_unit": "s"},
    {"name": "BM_B", "run_name": "BM_B", "run_type": "iteration",
     "iterations": 3, "real_time": 0.5, "time_unit": "s"}
  ]
})";
  absl::StatusOr<std::map<std::string, double>> costs =
      ParseRunCosts(kWhole, "run.json");
  ASSERT_TRUE(costs.ok()) << costs.status();
  EXPECT_DOUBLE_EQ(costs->at("BM_A"), 42.5);
  EXPECT_DOUBLE_EQ(costs->at("BM_B"), 1.5);
}

TEST(ParseRunCostsTest, WhatIsNotARunIsAnErrorNamingTheFlagAndTheFix) {
  for (const char* bad :
       {"", "not json", "[1, 2]", R"({"benchmarks": []})",
        R"({"context": {}, "benchmarks": []})",
        R"({"context": {}, "benchmarks": [{"name": "BM_A"}]})",
        R"({"context": {}, "benchmarks": [)"}) {
    absl::StatusOr<std::map<std::string, double>> costs =
        ParseRunCosts(bad, "x.json");
    ASSERT_FALSE(costs.ok()) << bad;
    EXPECT_THAT(costs.status().message(),
                HasSubstr("--pmubench_shard_costs=x.json: not a run"));
    EXPECT_THAT(costs.status().message(), HasSubstr("--benchmark_out=FILE"));
  }
}

}  // namespace
}  // namespace pmubench::internal
