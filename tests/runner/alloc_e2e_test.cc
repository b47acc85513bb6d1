// Heap allocations per iteration end to end: runner_alloc_cases
// (alloc_cases.cc) run natively and under --pmubench_simulate, its JSON and
// console read back. The counts are exact: each case's heap work per
// iteration is known.
//
// Under AddressSanitizer (Bazel's --config=asan) pmubench cannot count
// (ASan's allocator replaces its counting one): there the test checks that
// the run says so and leaves the fields out.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"

namespace {

using ::pmubench::testing::CasesBinary;
using ::pmubench::testing::JsonRunField;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::Result;
using ::pmubench::testing::RunShell;
using ::testing::HasSubstr;
using ::testing::Not;

bool BuiltWithAsan() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#else
  return false;
#endif
}

struct Expected {
  const char* name;
  double allocs;
  double bytes;
  double frees;
};

// libstdc++ of GCC 12 and glibc, 64-bit.
constexpr Expected kExact[] = {
    {"BM_AllocMakeUnique", 1, 4, 1},
    {"BM_AllocVector100", 8, 1020, 8},
    {"BM_AllocString/15", 0, 0, 0},
    {"BM_AllocString/16", 1, 17, 1},
    {"BM_AllocMap10", 10, 400, 10},
    {"BM_AllocMakeShared", 1, 24, 1},
    {"BM_AllocRealloc", 2, 64 + (1 << 20), 2},
    {"BM_AllocShrunkInPlace", 2, 2024 + 24, 2},
    {"BM_AllocManyShrunk", 100, 100 * 2024, 100},
    {"BM_AllocAligned", 3, 128 + 256 + 32, 3},
    {"BM_AllocNothrowCalloc", 2, 4 + 40, 2},
    {"BM_AllocFailure", 0, 0, 0},
    {"AllocFixture/NoLoopAllocation", 0, 0, 0},
    {"BM_AllocOutsideTheLoop", 1, 4, 1},
    {"BM_AllocThreads/threads:2", 1, 4, 1},
};

// The four fields, and every case of the file.
constexpr const char* kFields[] = {"allocs_per_iter", "alloc_bytes_per_iter",
                                   "frees_per_iter", "max_bytes_used"};
std::vector<std::string> AllCases() {
  std::vector<std::string> names = {"BM_AllocNewThrows",
                                    "AllocFixture/NoLoopAllocation"};
  for (const Expected& e : kExact) names.push_back(e.name);
  return names;
}

// The live bytes a request of `size` bytes counts for: its exact fit in
// glibc's heap (malloc.c's request2size, 16-byte steps with the 8-byte size
// word, at least 32 bytes, less the size word), mapped on its own or not,
// whatever chunk glibc handed out.
double HeapUsableOf(size_t size) {
  const size_t chunk = (size + 8 + 15) & ~size_t{15};
  return static_cast<double>((chunk < 32 ? 32 : chunk) - 8);
}

// Cases whose peak of live bytes follows from their requests alone.
struct ExpectedPeak {
  const char* name;
  double bytes;
};
std::vector<ExpectedPeak> ExpectedPeaks() {
  return {{"BM_AllocMakeUnique", HeapUsableOf(4)},
          {"BM_AllocString/15", 0},
          {"BM_AllocMap10", 10 * HeapUsableOf(40)},
          // 64 bytes, shrunk, then moved to a block of 1 MiB (mapped under
          // callgrind, where the threshold is pinned; in the heap natively
          // once glibc raised it).
          {"BM_AllocRealloc", HeapUsableOf(1 << 20)},
          // The shrunk block and the small one; glibc's chunk for the
          // shrunk block is 16 bytes larger.
          {"BM_AllocShrunkInPlace", HeapUsableOf(2000) + HeapUsableOf(24)},
          // At its peak the 100th block is not shrunk yet.
          {"BM_AllocManyShrunk", 99 * HeapUsableOf(2000) + HeapUsableOf(2024)},
          // The aligned type and the aligned block: glibc trims an
          // aligned block as its heap stands, natively 16 bytes larger
          // in some runs.
          {"BM_AllocAligned", HeapUsableOf(128) + HeapUsableOf(256)}};
}

class AllocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(CasesBinary().empty());
    char dir[] = "/tmp/pmubench-alloc-test.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    out_ = dir_ + "/out.json";
  }
  void TearDown() override {
    if (!dir_.empty()) {
      ASSERT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0);
    }
  }
  // The cases binary with `args` (after --counters=none, so a later
  // --counters wins), `env` (NAME=VALUE ...) added to its environment.
  Result Run(const std::string& args, const std::string& env = "") {
    return RunShell("cd '" + dir_ + "' && env " + env + " TMPDIR='" + dir_ +
                        "' '" + CasesBinary() + "' --counters=none " + args +
                        " --benchmark_out='" + out_ +
                        "' --benchmark_out_format=json",
                    dir_ + "/console");
  }
  std::string Json() { return ReadFile(out_); }

  // Every case of kExact, exactly, in the last run's JSON, and the peaks
  // that follow from the requests.
  void ExpectExact(const std::string& json) {
    ExpectCounts(json);
    for (const ExpectedPeak& e : ExpectedPeaks()) {
      EXPECT_EQ(JsonRunField(json, e.name, "max_bytes_used"), e.bytes)
          << e.name;
    }
    // The exception object of a failed new: one allocation, freed.
    EXPECT_EQ(JsonRunField(json, "BM_AllocNewThrows", "allocs_per_iter"), 1);
    EXPECT_EQ(JsonRunField(json, "BM_AllocNewThrows", "frees_per_iter"), 1);
  }

  // The allocations, bytes and frees of every case of kExact but `except`.
  void ExpectCounts(const std::string& json, std::string_view except = "") {
    for (const Expected& e : kExact) {
      if (e.name == except) continue;
      SCOPED_TRACE(e.name);
      EXPECT_EQ(JsonRunField(json, e.name, "allocs_per_iter"), e.allocs);
      EXPECT_EQ(JsonRunField(json, e.name, "alloc_bytes_per_iter"), e.bytes);
      EXPECT_EQ(JsonRunField(json, e.name, "frees_per_iter"), e.frees);
    }
  }

  std::string dir_;
  std::string out_;
};

// Another allocator ahead of glibc's (Debian's libjemalloc2 and
// libtcmalloc-minimal4, preloaded: the same search order as linking them):
// pmubench's definitions still come first and hand the work on, so every
// count holds but BM_AllocRealloc's (whether a shrink moves is the
// allocator's choice: jemalloc moves it) and the peaks (each allocator's
// own usable sizes).
TEST_F(AllocTest, ProgramsOnJemallocOrTcmallocCountToo) {
  if (BuiltWithAsan()) GTEST_SKIP() << "AsanSaysAllocationsAreNotCounted";
#if defined(__x86_64__)
  const std::string lib_dir = "/usr/lib/x86_64-linux-gnu/";
#elif defined(__aarch64__)
  const std::string lib_dir = "/usr/lib/aarch64-linux-gnu/";
#else
  GTEST_SKIP() << "no Debian library directory known for this architecture";
#endif
  int ran = 0;
  for (const char* lib : {"libjemalloc.so.2", "libtcmalloc_minimal.so.4"}) {
    const std::string path = lib_dir + lib;
    if (access(path.c_str(), R_OK) != 0) continue;
    SCOPED_TRACE(path);
    const Result r = Run("--benchmark_min_time=0.01", "LD_PRELOAD=" + path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string json = Json();
    ExpectCounts(json, /*except=*/"BM_AllocRealloc");
    EXPECT_GT(JsonRunField(json, "BM_AllocMakeUnique", "max_bytes_used"), 0);
    ++ran;
  }
  if (ran == 0) {
    GTEST_SKIP() << "neither libjemalloc2 nor libtcmalloc-minimal4 is "
                    "installed (scripts/setup installs both)";
  }
}

TEST_F(AllocTest, KnownHeapWorkIsCountedExactlyPerIteration) {
  if (BuiltWithAsan()) GTEST_SKIP() << "AsanSaysAllocationsAreNotCounted";
  const Result r = Run("--benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectExact(Json());
}

// Every field of every case, the peak included, equal to the native run's,
// with and without counters (the heap counts alone run on a fresh heap
// too), and whatever the size of the environment: under callgrind the
// peak once moved with it (glibc hands out up to 16 bytes more, or trims an
// aligned block differently, as its heap stands when the loop starts).
TEST_F(AllocTest, UnderCallgrindTheFieldsEqualTheNativeOnes) {
  if (BuiltWithAsan()) {
    GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build; the "
                    "CMake build runs this test";
  }
  if (std::system("valgrind --tool=callgrind --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "valgrind is not installed (apt-get install valgrind; "
                    "scripts/setup installs it)";
  }
  Result r = Run("--benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string native = Json();
  const std::string long_value(300, 'x');
  const std::string simulated_runs[][2] = {
      {"OLDPWD=x", "--pmubench_simulate"},
      {"OLDPWD=" + long_value, "--pmubench_simulate --counters=instructions"}};
  for (const auto& [env, flags] : simulated_runs) {
    SCOPED_TRACE(flags + " with " + env.substr(0, 12));
    r = Run(flags, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string json = Json();
    ExpectExact(json);
    for (const std::string& name : AllCases()) {
      for (const char* field : kFields) {
        EXPECT_EQ(JsonRunField(json, name, field),
                  JsonRunField(native, name, field))
            << name << " " << field;
      }
    }
  }
}

TEST_F(AllocTest, TheConsoleShowsTheFields) {
  if (BuiltWithAsan()) GTEST_SKIP() << "AsanSaysAllocationsAreNotCounted";
  const Result r =
      Run("--benchmark_filter=BM_AllocMakeUnique --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("allocs_per_iter=1 alloc_bytes_per_iter=4 "
                               "frees_per_iter=1 max_bytes_used="));
}

TEST_F(AllocTest, OffLeavesTheFieldsOut) {
  const Result r =
      Run("--pmubench_allocations=off --benchmark_filter=BM_AllocMakeUnique "
          "--benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = Json();
  ASSERT_THAT(json, HasSubstr("\"name\": \"BM_AllocMakeUnique\""));
  EXPECT_THAT(json, Not(HasSubstr("allocs_per_iter")));
  EXPECT_THAT(json, Not(HasSubstr("max_bytes_used")));
  EXPECT_THAT(r.out, Not(HasSubstr("allocs_per_iter")));
}

TEST_F(AllocTest, AWrongFlagValueIsExit2NamingIt) {
  const Result r = Run("--pmubench_allocations=maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--pmubench_allocations=maybe"));
  EXPECT_THAT(r.err, HasSubstr("on"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_Alloc")));
  EXPECT_NE(access(out_.c_str(), F_OK), 0) << "no output file";
}

TEST_F(AllocTest, ARegisteredMemoryManagerIsReplacedAndSaidOnce) {
  const Result r =
      Run("--benchmark_filter=BM_AllocMakeUnique --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string notice = "benchmark::RegisterMemoryManager";
  const size_t first = r.err.find(notice);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(notice, first + 1), std::string::npos) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("was started")));
  const std::string json = Json();
  // Google Benchmark's own memory fields would repeat the key in the row.
  const size_t key = json.find("\"allocs_per_iter\"");
  EXPECT_EQ(json.find("\"allocs_per_iter\"", key + 1), std::string::npos);
  EXPECT_THAT(json, Not(HasSubstr("12345")));
}

TEST_F(AllocTest, AsanSaysAllocationsAreNotCounted) {
  if (!BuiltWithAsan()) {
    GTEST_SKIP() << "a build without AddressSanitizer counts (the "
                    "KnownHeapWork test); bazel test --config=asan runs this";
  }
  const Result r =
      Run("--benchmark_filter=BM_AllocMakeUnique --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("heap allocations are not counted"));
  EXPECT_THAT(r.err, HasSubstr("AddressSanitizer"));
  const std::string json = Json();
  EXPECT_TRUE(
      std::isnan(JsonRunField(json, "BM_AllocMakeUnique", "allocs_per_iter")))
      << "absent, not zero";
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  return RUN_ALL_TESTS();
}
