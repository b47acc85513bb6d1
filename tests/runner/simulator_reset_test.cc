// The branch outcomes that reset callgrind's conditional predictor
// (framework/runner/simulate/simulator_reset.h), run through a model of the
// predictor (cachegrind's cg_branchpred.c: 7 bits of history, 7 of
// address, 2-bit counters): from any state, the same state after.
#include "framework/runner/simulate/simulator_reset.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <vector>

namespace pmubench::internal {
namespace {

constexpr int kBranchesPerPass = 128;

std::vector<int> Outcomes() {
  int words = 0;
  const unsigned long long* bits = PredictorResetBits(&words);
  std::vector<int> outcomes;
  for (int i = 0; i < words * 64; ++i) {
    outcomes.push_back(static_cast<int>((bits[i / 64] >> (i % 64)) & 1));
  }
  return outcomes;
}

// callgrind's conditional predictor, as cg_branchpred.c has it.
struct Predictor {
  unsigned history = 0;
  std::array<unsigned char, 1 << 14> counters{};

  void Branch(unsigned slot, int taken) {
    const unsigned index = ((history & 0x7f) << 7) | (slot & 0x7f);
    history = (history << 1) | static_cast<unsigned>(taken);
    unsigned char& c = counters[index];
    if (taken && c < 3) ++c;
    if (!taken && c > 0) --c;
  }
};

TEST(SimulatorResetTest, EveryStartingStateEndsInTheSameState) {
  const std::vector<int> outcomes = Outcomes();
  ASSERT_EQ(outcomes.size() % kBranchesPerPass, 0u);
  std::mt19937 random(7);
  std::optional<Predictor> first;
  // Every history the reset may start from, each with counters at random.
  for (unsigned start = 0; start < 128; ++start) {
    Predictor p;
    p.history = start;
    for (unsigned char& c : p.counters) c = random() % 4;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      p.Branch(i % kBranchesPerPass, outcomes[i]);  // branch j of a pass
    }
    if (!first.has_value()) {
      first = p;
      continue;
    }
    ASSERT_EQ(p.history & 0x7f, first->history & 0x7f) << "from " << start;
    int differ = 0;
    for (size_t i = 0; i < p.counters.size(); ++i) {
      differ += p.counters[i] != first->counters[i];
    }
    ASSERT_EQ(differ, 0) << "counters that remember the state before, from "
                         << start;
  }
}

TEST(SimulatorResetTest, TheSequenceHasEveryHistoryButAllNotTakenOncePer127) {
  const std::vector<int> outcomes = Outcomes();
  std::array<int, 128> seen{};
  for (int i = 7; i < 7 + 127; ++i) {
    unsigned history = 0;
    for (int k = 7; k >= 1; --k) history = (history << 1) | outcomes[i - k];
    ++seen[history];
  }
  EXPECT_EQ(seen[0], 0);
  for (int h = 1; h < 128; ++h) EXPECT_EQ(seen[h], 1) << "history " << h;
}

TEST(SimulatorResetTest, RunsNativelyAndLeavesTheProgramAsItWas) {
  // Outside valgrind the client requests are no-ops and the branches jump
  // to where they would fall through: nothing changes, nothing crashes.
  volatile int before = 42;
  ResetSimulatedCachesAndPredictors();
  ResetSimulatedCachesAndPredictors();
  EXPECT_EQ(before, 42);
}

}  // namespace
}  // namespace pmubench::internal
