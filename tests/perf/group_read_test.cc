// Decoding one read(2) of a group leader: values are placed by their
// PERF_FORMAT_ID id, and a read that does not match the group is refused.
#include "framework/perf/counting/group_read.h"

#include <array>
#include <cstdint>

#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

TEST(GroupReadTest, PlacesValuesByIdNotByPosition) {
  const std::array<uint64_t, 3> ids = {41, 42, 43};
  // nr, enabled, running, then {value, id} in an order unlike the group's.
  const std::array<uint64_t, GroupReadWords(3)> words = {
      3, 1000, 900, /*value*/ 30, /*id*/ 43, 10, 41, 20, 42};
  std::array<uint64_t, 3> counts{};
  uint64_t enabled = 0;
  uint64_t running = 0;
  ASSERT_TRUE(DecodeGroupRead(words.data(), 3, ids.data(), counts.data(),
                              &enabled, &running));
  EXPECT_EQ(counts[0], 10u);
  EXPECT_EQ(counts[1], 20u);
  EXPECT_EQ(counts[2], 30u);
  EXPECT_EQ(enabled, 1000u);
  EXPECT_EQ(running, 900u);
}

TEST(GroupReadTest, RefusesAWrongCountOrAnUnknownId) {
  const std::array<uint64_t, 2> ids = {7, 8};
  std::array<uint64_t, 2> counts{};
  uint64_t enabled = 0;
  uint64_t running = 0;
  const std::array<uint64_t, GroupReadWords(2)> wrong_nr = {1, 5, 5, 1,
                                                            7, 2, 8};
  EXPECT_FALSE(DecodeGroupRead(wrong_nr.data(), 2, ids.data(), counts.data(),
                               &enabled, &running));
  const std::array<uint64_t, GroupReadWords(2)> stranger = {2, 5, 5, 1,
                                                            7, 2, 9};
  EXPECT_FALSE(DecodeGroupRead(stranger.data(), 2, ids.data(), counts.data(),
                               &enabled, &running));
}

}  // namespace
}  // namespace pmubench::perf
