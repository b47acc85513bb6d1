#include "framework/perf/symbols/source_lines.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::perf {
namespace {

using ::testing::EndsWith;

// A whole function on one line: every row of its line table says that line.
// The two functions stay one line each (clang-format off): the test counts
// their lines from __LINE__.
// clang-format off
constexpr int kAddOneLine = __LINE__ + 1;
__attribute__((noinline)) int AddOne(int x) { asm volatile("" : "+r"(x)); return x + 1; }  // NOLINT

// Two lines apart: the second function's rows do not say the first's line.
// Eight nops make it at least 9 bytes long in every build (at -O2 the
// multiply alone is `lea; ret`, 4 bytes), 36 on arm64.
constexpr int kTimesTwoLine = __LINE__ + 1;
__attribute__((noinline)) int TimesTwo(int x) { asm volatile(".rept 8\n\tnop\n\t.endr" : "+r"(x)); return x * 2; }  // NOLINT
// clang-format on

uint64_t AddressOf(int (*f)(int)) { return reinterpret_cast<uint64_t>(f); }

TEST(SourceLineOfTest, NamesTheFileAndLineOfAFunction) {
  ASSERT_EQ(AddOne(1), 2);
  std::optional<SourceLine> at = SourceLineOf(AddressOf(&AddOne));
  ASSERT_TRUE(at.has_value())
      << "no line information for AddOne: is the test built with -g?";
  EXPECT_THAT(at->file, EndsWith("tests/perf/source_lines_test.cc"));
  EXPECT_EQ(at->line, kAddOneLine);
}

TEST(SourceLineOfTest, EveryInstructionOfAFunctionIsOnItsLine) {
  ASSERT_EQ(TimesTwo(2), 4);
  // The first 9 bytes of TimesTwo: past its entry, still inside it.
  for (uint64_t offset : {0, 2, 4, 6, 8}) {
    std::optional<SourceLine> at = SourceLineOf(AddressOf(&TimesTwo) + offset);
    ASSERT_TRUE(at.has_value()) << "offset " << offset;
    EXPECT_EQ(at->line, kTimesTwoLine) << "offset " << offset;
  }
  EXPECT_NE(kTimesTwoLine, kAddOneLine);
}

TEST(SourceLineOfTest, MemoryOutsideEveryModuleHasNoLine) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* anonymous = mmap(nullptr, page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(anonymous, MAP_FAILED);
  EXPECT_FALSE(SourceLineOf(reinterpret_cast<uint64_t>(anonymous)).has_value());
  EXPECT_FALSE(SourceLineOf(0).has_value());
  munmap(anonymous, page);
}

TEST(SourceLineOfTest, ConcurrentLookupsAgree) {
  // libdwfl is not thread-safe: SourceLineOf serializes its callers.
  std::vector<std::thread> threads;
  std::vector<int> lines(8, -1);
  for (size_t t = 0; t < lines.size(); ++t) {
    threads.emplace_back([t, &lines] {
      // Distinct addresses too, so each thread misses the cache at least once.
      uint64_t address = AddressOf(t % 2 == 0 ? &AddOne : &TimesTwo) + t / 2;
      std::optional<SourceLine> at = SourceLineOf(address);
      lines[t] = at ? at->line : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t t = 0; t < lines.size(); ++t) {
    EXPECT_EQ(lines[t], t % 2 == 0 ? kAddOneLine : kTimesTwoLine) << t;
  }
}

}  // namespace
}  // namespace pmubench::perf
