// The callgrind backend end to end, under real valgrind: runner_simulate_cases
// (simulate_cases.cc) run with --pmubench_simulate, or started under
// callgrind by hand as a user would, and its JSON read back.
//
// Valgrind cannot run a binary built with AddressSanitizer: the Bazel
// --config=asan build skips these tests (saying so); the CMake build runs
// them, and CI installs valgrind.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"

namespace {

using ::pmubench::testing::CasesBinary;
using ::pmubench::testing::JsonRunField;
using ::pmubench::testing::ListDir;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::Result;
using ::pmubench::testing::RunShell;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kInstructions[] = "callgrind/instructions/";

bool BuiltWithAsan() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

// The string value of a context key, or "".
std::string ContextValue(const std::string& json, const std::string& key) {
  const std::string field = "\"" + key + "\": \"";
  const size_t at = json.find(field);
  if (at == std::string::npos) return "";
  const size_t start = at + field.size();
  return json.substr(start, json.find('"', start) - start);
}

// A copy of `binary` in a directory `length` characters long under `dir`:
// a longer path moves what a run starts with (its arguments, the stack).
// "" if the copy could not be made.
std::string CopyUnderLongerPath(const std::string& binary,
                                const std::string& dir, size_t length) {
  const std::string far = dir + "/" + std::string(length, 'd');
  if (std::system(
          ("mkdir '" + far + "' && cp '" + binary + "' '" + far + "/cases'")
              .c_str()) != 0) {
    return "";
  }
  return far + "/cases";
}

class SimulateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (BuiltWithAsan()) {
      GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build; the "
                      "CMake build runs these tests";
    }
#if !defined(__x86_64__) && !defined(__aarch64__)
    GTEST_SKIP() << "the callgrind backend supports x86-64 and arm64 only";
#endif
    // With --tool=callgrind: `valgrind --version` starts the default tool,
    // memcheck, which the PMU VM's guest does not have (scripts/pmuvm).
    if (std::system("valgrind --tool=callgrind --version >/dev/null 2>&1") !=
        0) {
      GTEST_SKIP() << "valgrind is not installed (apt-get install valgrind; "
                      "scripts/setup installs it)";
    }
    ASSERT_FALSE(CasesBinary().empty());
    char dir[] = "/tmp/pmubench-simulate-test.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    out_ = dir_ + "/out.json";
  }
  void TearDown() override {
    if (!dir_.empty()) {
      ASSERT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0);
    }
  }

  // The cases binary with `args`, its temporary files in our directory.
  // Or `binary` with `args`, `env` (NAME=VALUE ...) set.
  Result Run(const std::string& args, const std::string& binary = CasesBinary(),
             const std::string& env = "") {
    return RunShell("cd '" + dir_ + "' && " + env + " TMPDIR='" + dir_ + "' '" +
                        binary + "' " + args + " --benchmark_out='" + out_ +
                        "' --benchmark_out_format=json",
                    dir_ + "/console");
  }
  std::string Json() { return ReadFile(out_); }
  // What the run left in the directory besides its JSON file.
  std::vector<std::string> Leftovers() {
    std::vector<std::string> names = ListDir(dir_);
    names.erase(std::remove(names.begin(), names.end(), "out.json"),
                names.end());
    return names;
  }

  std::string dir_;
  std::string out_;
};

TEST_F(SimulateTest, EveryLoopFormCountsExactInstructionsPerIteration) {
  const Result r =
      Run("--pmubench_simulate --benchmark_filter='BM_SimNops|BM_SimPaused|"
          "SimFixture|BM_SimThreads|BM_SimKeepRunning'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = Json();
  EXPECT_EQ(JsonRunField(json, "BM_SimNops", kInstructions), 102);
  EXPECT_EQ(JsonRunField(json, "BM_SimPaused", kInstructions), 102)
      << "the paused region and the pause pair add nothing";
  EXPECT_EQ(JsonRunField(json, "SimFixture/Nops", kInstructions), 102)
      << "SetUp and TearDown are not counted";
  EXPECT_EQ(JsonRunField(json, "BM_SimThreads/threads:2", kInstructions), 102)
      << "per iteration per thread";
  EXPECT_EQ(JsonRunField(json, "BM_SimKeepRunning200", kInstructions) -
                JsonRunField(json, "BM_SimKeepRunning100", kInstructions),
            100);
  EXPECT_EQ(JsonRunField(json, "BM_SimKeepRunningBatch200", kInstructions) -
                JsonRunField(json, "BM_SimKeepRunningBatch100", kInstructions),
            100);
  // Fixed iterations: segments of 10, 10, 10 and 20 steps (x 2 threads).
  EXPECT_EQ(JsonRunField(json, "BM_SimNops", "iterations"), 50);
  EXPECT_EQ(JsonRunField(json, "BM_SimThreads/threads:2", "iterations"), 100);
  EXPECT_EQ(JsonRunField(json, "BM_SimKeepRunningBatch100", "iterations"),
            4 * 50);
  EXPECT_EQ(ContextValue(json, "pmubench_backend"), "callgrind");
  EXPECT_THAT(ContextValue(json, "pmubench_valgrind"),
              HasSubstr("valgrind-3."));
  EXPECT_EQ(ContextValue(json, "pmubench_cache_geometry"), "none");
  EXPECT_THAT(r.err, HasSubstr("SIMULATED by callgrind"));
  EXPECT_THAT(Leftovers(), ::testing::ElementsAre())
      << "callgrind's private directory is removed";
}

TEST_F(SimulateTest, TwoRunsGiveBitIdenticalCounts) {
  const std::string args =
      "--pmubench_simulate --pmubench_simulate_iterations=25 "
      "--benchmark_filter='BM_SimNops|BM_SimChase/4096|BM_SimBranchShuffled'";
  ASSERT_EQ(Run(args).exit_code, 0);
  const std::string first = Json();
  ASSERT_EQ(Run(args).exit_code, 0);
  const std::string second = Json();
  for (const char* name :
       {"BM_SimNops", "BM_SimChase/4096", "BM_SimBranchShuffled"}) {
    const double a = JsonRunField(first, name, kInstructions);
    EXPECT_FALSE(std::isnan(a)) << name;
    EXPECT_EQ(a, JsonRunField(second, name, kInstructions)) << name;
  }
  // 25 steps: 25 + 25 + 25 + 50.
  EXPECT_EQ(JsonRunField(first, "BM_SimNops", "iterations"), 125);
}

// The binary of runner_simulate_cases built as a commit that adds a case
// (PMUBENCH_SIM_EXTRA_CASE): from PMUBENCH_SIM_CASES_MORE_PATH or
// --sim_cases_more=PATH.
std::string& CasesMoreBinary() {
#ifdef PMUBENCH_SIM_CASES_MORE_PATH
  static std::string path = PMUBENCH_SIM_CASES_MORE_PATH;
#else
  static std::string path;
#endif
  return path;
}

constexpr const char* kHeavyCases[] = {
    "BM_SimHeavyHeapCopy", "BM_SimHeavyStackCopy", "BM_SimHeavyMaps",
    "BM_SimHeavyBigBlocks"};

TEST_F(SimulateTest, HeavyCasesCountTheSameAloneAfterOthersAndFromAnyPath) {
  const std::string flags =
      "--pmubench_simulate=" +
      std::string("cache --benchmark_filter='BM_SimHeavy");
  ASSERT_EQ(Run(flags + "'").exit_code, 0);
  const std::string alone = Json();
  if (ContextValue(alone, "pmubench_fresh_heap") == "off") {
    GTEST_SKIP() << "built without the fresh heap (PMUBENCH_FRESH_HEAP=OFF), "
                    "which this needs";
  }
  EXPECT_EQ(ContextValue(alone, "pmubench_fresh_heap"), "on");
  // After the chatty cases, from a copy under a longer path, with a larger
  // environment and a harmless flag more; and the binary of a commit that
  // adds a case (registration and start-up allocate more).
  const std::string far = CopyUnderLongerPath(CasesBinary(), dir_, 120);
  ASSERT_FALSE(far.empty());
  for (const std::string& binary : {far, CasesMoreBinary()}) {
    SCOPED_TRACE(binary);
    ASSERT_FALSE(binary.empty());
    const Result r = RunShell(
        "cd '" + dir_ + "' && PMUBENCH_TEST_PADDING=" + std::string(3000, 'p') +
            " TMPDIR='" + dir_ + "' '" + binary + "' " + flags +
            "|BM_SimChatty|BM_SimAdded' --benchmark_counters_tabular=true "
            "--benchmark_out='" +
            out_ + "' --benchmark_out_format=json",
        dir_ + "/console");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string after = Json();
    ASSERT_LT(after.find("BM_SimChattyHeap"), after.find(kHeavyCases[0]))
        << "the chatty case runs first";
    // Each batch starts from callgrind's caches emptied and its predictors
    // set (simulator_reset.h), so the same code counts the same misses
    // whatever ran before. The binary that adds a case has its code and
    // data elsewhere, so only its instructions must agree: callgrind's
    // caches and predictors are indexed by address (its simulated L1
    // misses moved by 0.1% in the Bazel build).
    const bool same_code = binary != CasesMoreBinary();
    std::vector<std::string> fields = {kInstructions};
    if (same_code) {
      fields.push_back("callgrind/L1-dcache-load-misses/");
      fields.push_back("callgrind/LLC-load-misses/");
      fields.push_back("callgrind/L1-icache-load-misses/");
      fields.push_back("callgrind/branch-misses/");
    }
    for (const char* name : kHeavyCases) {
      for (const std::string& field : fields) {
        const double a = JsonRunField(alone, name, field);
        EXPECT_FALSE(std::isnan(a)) << name << " " << field;
        EXPECT_EQ(a, JsonRunField(after, name, field)) << name << " " << field;
      }
    }
  }
}

TEST_F(SimulateTest, CacheSimulationSeesMissesAndMispredictions) {
  // Misses averaged over 100 and 200 steps.
  const Result r =
      Run("--pmubench_simulate=cache --pmubench_simulate_iterations=100 "
          "--benchmark_filter='BM_SimChase|BM_SimBranch'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = Json();
  const std::string ll = "callgrind/LLC-load-misses/";
  const std::string l1 = "callgrind/L1-dcache-load-misses/";
  const std::string mispredicts = "callgrind/branch-misses/";
  // 4 KiB stays in L1; a random cycle over 64 MiB misses an 8 MiB
  // last-level cache 7 times in 8.
  EXPECT_LT(JsonRunField(json, "BM_SimChase/4096", l1), 0.05);
  EXPECT_LT(JsonRunField(json, "BM_SimChase/4096", ll), 0.05);
  EXPECT_GT(JsonRunField(json, "BM_SimChase/67108864", l1), 0.9);
  EXPECT_GT(JsonRunField(json, "BM_SimChase/67108864", ll), 0.7);
  EXPECT_LT(JsonRunField(json, "BM_SimBranchSorted", mispredicts), 0.05);
  EXPECT_GT(JsonRunField(json, "BM_SimBranchShuffled", mispredicts), 0.3);
  EXPECT_EQ(JsonRunField(json, "BM_SimChase/4096", kInstructions),
            JsonRunField(json, "BM_SimChase/67108864", kInstructions));
  EXPECT_EQ(ContextValue(json, "pmubench_cache_geometry"),
            "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64");
}

TEST_F(SimulateTest, BadInputIsExit2BeforeAnyRun) {
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {"--pmubench_simulate=caches", "give 'instructions'"},
      {"--pmubench_simulate=cache --pmubench_simulate_ll=1000,8,64",
       "--pmubench_simulate_ll=1000,8,64: give SIZE,ASSOCIATIVITY,LINE_SIZE"},
      {"--pmubench_simulate_iterations=5",
       "take effect with --pmubench_simulate"},
      {"--pmubench_simulate --pmubench_simulate_iterations=-1",
       "give a whole number"},
      {"--pmubench_simulate --counters=cycles",
       "cycles and times are not simulated"},
      {"--pmubench_simulate --counters=L1-dcache-load-misses",
       "need --pmubench_simulate=cache"},
      {"--pmubench_simulate --pmubench_profile=cpu-clock",
       "give --pmubench_profile=instructions"},
      {"--pmubench_simulate --pmubench_profile=instructions "
       "--pmubench_profile_callchain",
       "give --pmubench_profile=instructions"},
  };
  for (const auto& c : cases) {
    const Result r = Run(c.args + " --benchmark_filter=BM_SimNops");
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
    EXPECT_THAT(r.out, Not(HasSubstr("BM_SimNops"))) << c.args;
    EXPECT_THAT(Leftovers(), ::testing::ElementsAre())
        << "nothing written: " << c.args;
    EXPECT_EQ(ReadFile(out_), "") << "no JSON file: " << c.args;
  }
}

TEST_F(SimulateTest, ProfilesCountEachFunctionsInstructionsExactly) {
  const Result r =
      Run("--pmubench_simulate --pmubench_profile=instructions "
          "--benchmark_filter=BM_SimProfiled$");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The measured segment is 2n = 20 steps; each step calls both functions,
  // which differ by 200 nops and nothing else.
  const std::string json = Json();
  auto samples = [&](const std::string& symbol) {
    const size_t at = json.find(symbol + "\", \"samples\": ");
    if (at == std::string::npos) return -1.0;
    return std::strtod(json.c_str() + json.find(": ", at + symbol.size()) + 2,
                       nullptr);
  };
  const double hundred = samples("::Hundred()");
  const double three_hundred = samples("::ThreeHundred()");
  EXPECT_GT(hundred, 20 * 100);
  EXPECT_EQ(three_hundred - hundred, 20 * 200);
  EXPECT_THAT(r.out, HasSubstr("profile callgrind/instructions/"));
  EXPECT_THAT(json, HasSubstr("\"pmubench_profile_event\": "
                              "\"callgrind/instructions/\""));
}

TEST_F(SimulateTest, MissingValgrindNamesThePackage) {
  const Result r =
      RunShell("PATH=/nonexistent '" + CasesBinary() + "' --pmubench_simulate",
               dir_ + "/console");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("apt-get install valgrind"));
}

TEST_F(SimulateTest, CallgrindStartedByHandIsDetected) {
  // The form scripts outside the project use; dumps go to the directory.
  const Result r =
      RunShell("cd '" + dir_ +
                   "' && valgrind -q --tool=callgrind --collect-atstart=no '" +
                   CasesBinary() +
                   "' --benchmark_filter='BM_SimNops|BM_SimThreads' "
                   "--benchmark_out='" +
                   out_ + "' --benchmark_out_format=json",
               dir_ + "/console");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = Json();
  EXPECT_EQ(JsonRunField(json, "BM_SimNops", kInstructions), 102);
  EXPECT_EQ(ContextValue(json, "pmubench_backend"), "callgrind");
  // Without --separate-threads=yes one dump holds every thread: the
  // threaded case fails and says what to pass.
  EXPECT_THAT(json, HasSubstr("--separate-threads=yes"));
  for (const std::string& name : Leftovers()) {
    EXPECT_EQ(name.rfind("callgrind.out.", 0), 0u)
        << name << ": only callgrind's own end-of-run profile stays";
    EXPECT_EQ(name.find('.', 14), std::string::npos)
        << name << ": every dump pmubench made is read and removed";
  }
}

TEST_F(SimulateTest, MoreBatchesThanValgrindHasThreadsFinishOnTheirOwn) {
  // Every batch runs on a thread of its own (fresh_heap.h) that ends with
  // it, so valgrind reuses its slot: 40 repetitions of a case are 80
  // batches and more, against valgrind's limit of 100 threads at once
  // (past it valgrind ends the whole run: "Max number of threads is too
  // low"), and each still counts on a fresh heap.
  const Result r = RunShell(
      "cd '" + dir_ + "' && valgrind -q " +
          "--tool=callgrind --collect-atstart=no --separate-threads=yes " +
          "--max-threads=100 '" + CasesBinary() +
          "' --benchmark_filter='BM_SimNops$' --benchmark_repetitions=40 "
          "--benchmark_out='" +
          out_ + "' --benchmark_out_format=json",
      dir_ + "/console");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("Max number of threads")));
  const std::string json = Json();
  EXPECT_EQ(JsonRunField(json, "BM_SimNops", kInstructions), 102);
}

TEST_F(SimulateTest, DumpsWhereCallgrindWasToldElsewhereAreAClearError) {
  const Result r =
      RunShell("cd '" + dir_ +
                   "' && valgrind -q --tool=callgrind --collect-atstart=no "
                   "--callgrind-out-file='" +
                   dir_ + "/elsewhere.out' '" + CasesBinary() +
                   "' --benchmark_filter=BM_SimNops",
               dir_ + "/console");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("PMUBENCH_CALLGRIND_OUT"));
}

// A thread the case starts is not counted under callgrind (each batch
// counts the loop's thread; a new thread starts with collection off and a
// dump holds the calling thread's costs): the row and stderr say so, as
// natively, and the count does not grow with the thread's work.
TEST_F(SimulateTest, ThreadsTheCaseStartsAreSaidOnTheRow) {
  const Result r =
      Run("--pmubench_simulate --benchmark_filter='^BM_SimStartsThread|"
          "^BM_SimNops$'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = Json();
  const std::string field = "pmubench_threads_not_counted";
  EXPECT_EQ(JsonRunField(json, "BM_SimStartsThread/10", field), 1);
  EXPECT_EQ(JsonRunField(json, "BM_SimStartsThread/100000", field), 1);
  EXPECT_TRUE(std::isnan(JsonRunField(json, "BM_SimNops", field)));
  EXPECT_LT(JsonRunField(json, "BM_SimStartsThread/100000", kInstructions),
            100000);
  EXPECT_THAT(r.err, HasSubstr("BM_SimStartsThread ran threads it started"));
}

// Each batch's arena stays reserved: a process whose address space is full
// (under valgrind, after about 2,000 batches of one unit; here filled at
// once by the first case's first batch) still runs every later batch (its
// second repetition's), on the calling thread's heap, with exact counts,
// and stderr says once from which batch on. The cases after it run in
// children forked from the state before it (run/unit_child.h).
TEST_F(SimulateTest, BatchesAfterTheAddressSpaceIsFullRunAndSaySo) {
  const Result r =
      Run("--pmubench_simulate --pmubench_jobs=1 --benchmark_repetitions=2 "
          "--benchmark_filter="
          "'^BM_SimFillsAddressSpace$|^BM_SimNops$|^BM_SimHeavyHeapCopy'",
          CasesBinary(), "PMUBENCH_TEST_FILL_ADDRESS_SPACE=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = Json();
  // The second repetition, which ran after the first filled the space:
  // one nop and the loop, as BM_SimNops's 100 read 102.
  const std::string fills = "\"name\": \"BM_SimFillsAddressSpace\"";
  const size_t second = json.find(fills, json.find(fills) + 1);
  ASSERT_NE(second, std::string::npos) << json;
  EXPECT_EQ(JsonRunField(json.substr(second), "BM_SimFillsAddressSpace",
                         kInstructions),
            3);
  EXPECT_EQ(JsonRunField(json, "BM_SimNops", kInstructions), 102);
  EXPECT_GT(JsonRunField(json, "BM_SimHeavyHeapCopy", kInstructions), 0);
  EXPECT_THAT(r.err, HasSubstr("found no address space for a fresh heap"));
  const std::string::size_type first = r.err.find("no address space");
  EXPECT_EQ(r.err.find("no address space", first + 1), std::string::npos)
      << "said once";
  EXPECT_THAT(Leftovers(), ::testing::IsEmpty());
}

// runner_simulate_layout_cases (simulate_layout_cases.cc): cases whose
// work follows addresses.
std::string& LayoutCasesBinary() {
#ifdef PMUBENCH_SIM_LAYOUT_CASES_PATH
  static std::string path = PMUBENCH_SIM_LAYOUT_CASES_PATH;
#else
  static std::string path;
#endif
  return path;
}

constexpr const char* kLayoutCases[] = {
    "BM_LayoutStdUnorderedMapOfPointers/1000", "BM_LayoutStdSetOfPointers/1000",
    "BM_LayoutAbslSetOfPointers/1000",         "BM_LayoutAbslLargeTable/1000",
    "BM_LayoutAbslLargeTable/20000",           "BM_LayoutBigBlocksByAddress"};
constexpr char kLayoutSensitive[] = "pmubench_layout_sensitive";

// Under --pmubench_layout_check every row either counts the same after the
// case that maps and unmaps blocks, from a 150-character longer path with
// 3,000 bytes more environment, and alone; or it is marked.
TEST_F(SimulateTest, AddressFollowingRowsStandStillOrAreMarked) {
  ASSERT_FALSE(LayoutCasesBinary().empty());
  const std::string far = CopyUnderLongerPath(LayoutCasesBinary(), dir_, 150);
  ASSERT_FALSE(far.empty());
  const std::string check = "--pmubench_simulate --pmubench_layout_check";
  std::vector<std::string> runs;
  for (const auto& [binary, env] :
       {std::pair<std::string, std::string>{LayoutCasesBinary(), ""},
        {far, "PMUBENCH_TEST_PADDING=" + std::string(3000, 'p')}}) {
    const Result r = Run(check, binary, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    runs.push_back(Json());
  }
  const std::string& after_maps = runs[0];
  ASSERT_LT(after_maps.find("BM_LayoutAMaps"),
            after_maps.find(kLayoutCases[0]));
  // Known to move with the layout (docs/ci_without_pmu.md): the Abseil set
  // of pointers. The mapped blocks hashed by address move too, and the
  // layout check does not always see it: in the Bazel build they read
  // 21,400.3 after the mapping case and 21,422.3 alone and from the far
  // path, unmarked, in some runs and not others (a detection gap, left
  // open in the docs). They are only required to count.
  EXPECT_EQ(JsonRunField(after_maps, kLayoutCases[2], kLayoutSensitive), 1);
  EXPECT_FALSE(
      std::isnan(JsonRunField(after_maps, kLayoutCases[5], kInstructions)));
  for (const char* name : kLayoutCases) {
    SCOPED_TRACE(name);
    const double marked = JsonRunField(after_maps, name, kLayoutSensitive);
    if (marked == 1 || name == kLayoutCases[5]) continue;
    const std::string family(
        std::string_view(name).substr(0, std::string_view(name).find('/')));
    ASSERT_EQ(Run("--pmubench_simulate --benchmark_filter='^" + family + "'",
                  LayoutCasesBinary())
                  .exit_code,
              0);
    const double count = JsonRunField(after_maps, name, kInstructions);
    EXPECT_FALSE(std::isnan(count));
    EXPECT_EQ(count, JsonRunField(runs[1], name, kInstructions)) << "far path";
    EXPECT_EQ(count, JsonRunField(Json(), name, kInstructions)) << "alone";
  }
}

// With workers each unit runs in a child forked from its worker
// (framework/runner/run/unit_child.h), so a case starts from the same
// address space whatever ran before it: the rows that follow addresses
// count the same after the mapping case, with their family alone, with
// another number of workers, and from a 150-character longer path with
// 3,000 bytes more environment, and in one process (--pmubench_jobs=1).
// (Before one process forked too, the Abseil set of pointers read 264,885
// in workers and 266,012 in one process after the mapping case.)
TEST_F(SimulateTest, AddressFollowingRowsStandStillInWorkers) {
  ASSERT_FALSE(LayoutCasesBinary().empty());
  const std::string far = CopyUnderLongerPath(LayoutCasesBinary(), dir_, 150);
  ASSERT_FALSE(far.empty());
  const Result whole =
      Run("--pmubench_simulate --pmubench_jobs=2", LayoutCasesBinary());
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string after_maps = Json();
  ASSERT_LT(after_maps.find("BM_LayoutAMaps"),
            after_maps.find(kLayoutCases[0]));
  const Result moved =
      Run("--pmubench_simulate --pmubench_jobs=3 "
          "--benchmark_filter='^BM_Layout(Std|Absl|Big)'",
          far, "PMUBENCH_TEST_PADDING=" + std::string(3000, 'p'));
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  const std::string far_json = Json();
  // One process forks its one worker, which forks each unit, the same way.
  const Result one =
      Run("--pmubench_simulate --pmubench_jobs=1", LayoutCasesBinary());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string one_json = Json();
  for (const char* name : kLayoutCases) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(std::isnan(JsonRunField(after_maps, name, kInstructions)));
    EXPECT_EQ(JsonRunField(after_maps, name, kInstructions),
              JsonRunField(far_json, name, kInstructions));
    EXPECT_EQ(JsonRunField(after_maps, name, kInstructions),
              JsonRunField(one_json, name, kInstructions))
        << "--pmubench_jobs=1";
  }
  // The three that move in one process (docs/ci_without_pmu.md), alone.
  for (const char* name : {kLayoutCases[2], kLayoutCases[4], kLayoutCases[5]}) {
    SCOPED_TRACE(name);
    const std::string_view family =
        std::string_view(name).substr(0, std::string_view(name).find('/'));
    ASSERT_EQ(Run("--pmubench_simulate --pmubench_jobs=2 "
                  "--benchmark_filter='^" +
                      std::string(family) + "'",
                  LayoutCasesBinary())
                  .exit_code,
              0);
    EXPECT_EQ(JsonRunField(after_maps, name, kInstructions),
              JsonRunField(Json(), name, kInstructions));
  }
}

// The check runs a batch twice: the console and the row say what moved.
TEST_F(SimulateTest, LayoutCheckNeedsTheBackendAndSaysWhatMoved) {
  const Result natively = Run("--pmubench_layout_check");
  EXPECT_EQ(natively.exit_code, 2);
  EXPECT_THAT(natively.err, HasSubstr("--pmubench_layout_check"));
  const Result r =
      Run("--pmubench_simulate --pmubench_layout_check "
          "--benchmark_filter=AbslSetOfPointers",
          LayoutCasesBinary());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("BM_LayoutAbslSetOfPointers counted"));
  EXPECT_THAT(r.out, HasSubstr("pmubench_layout_sensitive=1"));
  EXPECT_THAT(Leftovers(), ::testing::IsEmpty());
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  if (std::string more =
          pmubench::testing::TakeBinaryFlag(argc, argv, "sim_cases_more");
      !more.empty()) {
    CasesMoreBinary() = more;
  }
  if (std::string layout =
          pmubench::testing::TakeBinaryFlag(argc, argv, "sim_layout_cases");
      !layout.empty()) {
    LayoutCasesBinary() = layout;
  }
  return RUN_ALL_TESTS();
}
