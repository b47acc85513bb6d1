// The callgrind backend's pure parts: reading a dump, choosing the simulated
// events, the segment sizes, the options and valgrind's command line. The
// backend end to end, under real valgrind: simulate_e2e_test.cc.
#include <string>
#include <vector>

#include "framework/runner/cli/simulation_options.h"
#include "framework/runner/measure/simulated_meter.h"
#include "framework/runner/simulate/callgrind.h"
#include "framework/runner/simulate/segment_profile.h"
#include "framework/runner/simulate/simulated_events.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The header of a dump callgrind 3.19 wrote with cache and branch
// simulation (--separate-threads=yes), costs of two functions below it.
constexpr char kCacheDump[] =
    "# callgrind format\n"
    "version: 1\n"
    "creator: callgrind-3.19.0\n"
    "pid: 6553\n"
    "cmd:  ./c\n"
    "part: 4\n"
    "thread: 2\n"
    "\n"
    "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
    "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
    "desc: LL cache: 8388608 B, 64 B, 16-way associative\n"
    "\n"
    "desc: Timerange: Basic block 0 - 4566821\n"
    "desc: Trigger: Client Request: pmubench-1-7\n"
    "\n"
    "positions: line\n"
    "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
    "summary: 327696 65537 7 3 65536 1 3 0 0 65536 10\n"
    "\n"
    "ob=(1) /c\nfl=(1) c.cc\nfn=(1) main\n"
    "5 327686 65537 1 1 65536 0 1 0 0 65536 10\n"
    "\n"
    "totals: 327686 65537 1 1 65536 0 1 0 0 65536 10\n";

TEST(CallgrindDumpTest, ReadsTheSummaryEventsGeometryAndOrigin) {
  absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(kCacheDump, "f");
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_EQ(dump->creator, "callgrind-3.19.0");
  EXPECT_EQ(dump->part, 4);
  EXPECT_EQ(dump->thread, 2);
  EXPECT_EQ(dump->trigger, "Client Request: pmubench-1-7");
  EXPECT_EQ(dump->i1, "32768,8,64");
  EXPECT_EQ(dump->d1, "32768,8,64");
  EXPECT_EQ(dump->ll, "8388608,16,64");
  ASSERT_EQ(dump->events.size(), 13u);
  // summary:, not totals: (3.19 writes both; they differ by what the dump
  // request itself cost), and the two values callgrind left off are 0.
  EXPECT_EQ(dump->Total("Ir"), 327696);
  EXPECT_EQ(dump->Total("Dw"), 7);
  EXPECT_EQ(dump->Total("Bcm"), 10);
  EXPECT_EQ(dump->Total("Bi"), 0);
  EXPECT_EQ(dump->Total("Bim"), 0);
  EXPECT_EQ(dump->Total("Xx"), -1) << "an event the dump does not have";
}

TEST(CallgrindDumpTest, ReadsTotalsWhereThereIsNoSummary) {
  // Later valgrind versions write totals: only.
  absl::StatusOr<CallgrindDump> dump =
      ParseCallgrindDump("events: Ir\ntotals: 513\n", "f");
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_EQ(dump->Total("Ir"), 513);
  EXPECT_EQ(dump->i1, "") << "no cache simulation";
  EXPECT_EQ(dump->thread, 0) << "no --separate-threads";
}

TEST(CallgrindDumpTest, ReadsADirectMappedCacheAsOneWay) {
  // Callgrind spells one way "direct-mapped" (valgrind 3.19,
  // --D1=8192,1,64); read as nothing, it would compare equal to any other
  // direct-mapped geometry.
  absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(
      "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
      "desc: D1 cache: 8192 B, 64 B, direct-mapped\n"
      "desc: LL cache: 8388608 B, 64 B, 16-way associative\n"
      "events: Ir\nsummary: 1\n",
      "f");
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_EQ(dump->d1, "8192,1,64");
  EXPECT_EQ(dump->i1, "32768,8,64");
  // A cache line that is no geometry is an error, never an empty one.
  // Without cache simulation callgrind writes the lines empty.
  absl::StatusOr<CallgrindDump> none = ParseCallgrindDump(
      "desc: I1 cache: \ndesc: D1 cache: \ndesc: LL cache: \n"
      "events: Ir\nsummary: 1\n",
      "f");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->i1 + none->d1 + none->ll, "");
  for (const char* line :
       {"desc: D1 cache: 8192 B, 64 B, fully mixed\n", "desc: LL cache: 8 B\n",
        "desc: I1 cache: 0 B, 64 B, direct-mapped\n"}) {
    absl::StatusOr<CallgrindDump> bad = ParseCallgrindDump(
        std::string(line) + "events: Ir\nsummary: 1\n", "/d/f.4");
    ASSERT_FALSE(bad.ok()) << line;
    EXPECT_THAT(bad.status().message(), HasSubstr("/d/f.4")) << line;
    EXPECT_THAT(bad.status().message(), HasSubstr(" cache line ")) << line;
  }
}

TEST(CallgrindDumpTest, MalformedDumpsAreErrorsNamingTheFile) {
  for (const char* text :
       {"", "events: Ir\n", "summary: 5\n", "events: Ir\nsummary: 5x\n",
        "events: Ir\nsummary: 1 2\n",
        "events: Ir\nsummary: 99999999999999999999999\n"}) {
    absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(text, "/d/f.3");
    ASSERT_FALSE(dump.ok()) << "'" << text << "' was accepted";
    EXPECT_THAT(dump.status().message(), HasSubstr("/d/f.3"));
  }
}

TEST(CallgrindDumpTest, SelfCostsLeaveOutCallsAndFollowCompressedNames) {
  // Names defined once and then used by id; relative and repeated
  // positions; the line after calls= is the callee's inclusive cost.
  constexpr char kBody[] =
      "positions: line\n"
      "events: Ir Dr\n"
      "summary: 1000 7\n"
      "\n"
      "fl=(1) /src/a.cc\n"
      "fn=(1) outer()\n"
      "10 5 1\n"
      "+2 7\n"
      "cfl=(2) /src/b.cc\n"
      "cfn=(2) inner()\n"
      "calls=3 40\n"
      "13 900 6\n"
      "* 3\n"
      "\n"
      "fl=(2)\n"
      "fn=(2)\n"
      "40 85\n"
      "-1 0\n";
  absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(kBody, "f");
  ASSERT_TRUE(dump.ok()) << dump.status();
  std::vector<std::string> costs;
  for (const CallgrindDump::SelfCost& c : dump->self_costs) {
    costs.push_back(c.function + " " + c.file + ":" + std::to_string(c.line) +
                    " " + std::to_string(c.cost));
  }
  EXPECT_THAT(costs,
              ElementsAre("outer() /src/a.cc:10 5", "outer() /src/a.cc:12 7",
                          "outer() /src/a.cc:13 3", "inner() /src/b.cc:40 85"));
}

std::vector<std::string> CostTexts(const CallgrindDump& dump) {
  std::vector<std::string> costs;
  for (const CallgrindDump::SelfCost& c : dump.self_costs) {
    costs.push_back(c.function + " " + c.file + ":" + std::to_string(c.line) +
                    " " + std::to_string(c.cost));
  }
  return costs;
}

TEST(CallgrindDumpTest, InlinedCodeCountsInItsCallerAtItsOwnLines) {
  // As callgrind 3.19 writes a helper from helper.h inlined into Caller:
  // "fi=" switches to the helper's file inside Caller, "fe=" back; the
  // next function starts in its own "fl=" file.
  constexpr char kBody[] =
      "positions: line\n"
      "events: Ir\n"
      "summary: 9034\n"
      "\n"
      "fl=(1) /src/main.cc\n"
      "fn=(1) Caller(int)\n"
      "4 4\n"
      "fi=(2) /src/helper.h\n"
      "-1 6000\n"
      "fe=(1)\n"
      "+1 3000\n"
      "fi=(2)\n"
      "fn=(2) Other(int)\n"
      "7 30\n";
  absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(kBody, "f");
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_THAT(CostTexts(*dump), ElementsAre("Caller(int) /src/main.cc:4 4",
                                            "Caller(int) /src/helper.h:3 6000",
                                            "Caller(int) /src/main.cc:4 3000",
                                            "Other(int) /src/main.cc:7 30"));
}

TEST(SegmentProfileTest, TheLongerSegmentLessTheShorterPerLine) {
  const std::vector<CallgrindDump::SelfCost> longer = {
      {"Work()", "w.cc", 3, 2000},
      {"Work()", "w.cc", 4, 600},
      {"Loop()", "l.cc", 9, 70},
      {"Dump()", "d.cc", 1, 50},
      {"Work()", "w.cc", 3, 5}};
  const std::vector<CallgrindDump::SelfCost> shorter = {
      {"Work()", "w.cc", 3, 1000},
      {"Work()", "w.cc", 4, 300},
      {"Loop()", "l.cc", 9, 40},
      {"Dump()", "d.cc", 1, 50},
      {"Once()", "o.cc", 2, 8}};
  const SegmentProfile p = SubtractSegments(longer, shorter, 100, 0);
  std::vector<std::string> deltas;
  for (const SegmentDelta& d : p.costs) {
    deltas.push_back(d.function + " " + d.file + ":" + std::to_string(d.line) +
                     " " + std::to_string(d.delta));
  }
  // Dump() ran alike in both and cancels; Once() ran only in the shorter.
  EXPECT_THAT(deltas, ElementsAre("Work() w.cc:3 1005", "Work() w.cc:4 300",
                                  "Loop() l.cc:9 30", "Once() o.cc:2 -8"));
  EXPECT_EQ(p.iterations, 100);
  EXPECT_EQ(p.total, 1005 + 300 + 30 - 8);
}

TEST(SegmentProfileTest, CalibratedPausePairsAreAnEntryOfTheirOwn) {
  const SegmentProfile p = SubtractSegments(
      {{"State::PauseTiming()", "s.cc", 1, 500}, {"Work()", "w.cc", 3, 900}},
      {{"State::PauseTiming()", "s.cc", 1, 250}, {"Work()", "w.cc", 3, 450}},
      10, 250);
  EXPECT_EQ(p.total, 450) << "the row: (1400 - 700 - 250), over 10";
  ASSERT_EQ(p.costs.size(), 3u);
  EXPECT_EQ(p.costs[0].function, "Work()");
  // Ties of magnitude in name order: "State..." before "[...".
  EXPECT_EQ(p.costs[1].function, "State::PauseTiming()");
  EXPECT_EQ(p.costs[2].function, kPausePairsSymbol);
  EXPECT_EQ(p.costs[2].delta, -250);
}

std::vector<std::string> Fields(const SimulatedEventSet& set) {
  std::vector<std::string> fields;
  for (const SimulatedEvent& e : set.events) fields.push_back(e.field());
  for (const SimulatedRatio& r : set.ratios) fields.push_back(r.field());
  return fields;
}

const std::vector<std::string> kInstructionColumns = {"Ir"};
const std::vector<std::string> kCacheColumns = {
    "Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
    "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};

TEST(SimulatedEventsTest, InstructionsOnlyWithoutCacheSimulation) {
  absl::StatusOr<SimulatedEventSet> set =
      SelectSimulatedEvents("", AvailableSimulatedEvents(kInstructionColumns));
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(Fields(*set), ElementsAre("callgrind/instructions/"));
}

TEST(SimulatedEventsTest, CacheSimulationGivesPerfNamesAndRatios) {
  absl::StatusOr<SimulatedEventSet> set =
      SelectSimulatedEvents("", AvailableSimulatedEvents(kCacheColumns));
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(
      Fields(*set),
      ElementsAre(
          "callgrind/instructions/", "callgrind/L1-dcache-loads/",
          "callgrind/L1-dcache-stores/", "callgrind/L1-dcache-load-misses/",
          "callgrind/L1-dcache-store-misses/",
          "callgrind/L1-icache-load-misses/", "callgrind/LLC-load-misses/",
          "callgrind/LLC-store-misses/", "callgrind/cache-misses/",
          "callgrind/branches/", "callgrind/branch-misses/",
          "callgrind/L1-dcache-load-miss-ratio/",
          "callgrind/L1-dcache-store-miss-ratio/",
          "callgrind/branch-miss-ratio/"));
}

TEST(SimulatedEventsTest, CountersPickByPerfNameOrField) {
  absl::StatusOr<SimulatedEventSet> set = SelectSimulatedEvents(
      "branch-misses, callgrind/instructions/,branches,instructions",
      AvailableSimulatedEvents(kCacheColumns));
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(
      Fields(*set),
      ElementsAre("callgrind/branch-misses/", "callgrind/instructions/",
                  "callgrind/branches/", "callgrind/branch-miss-ratio/"))
      << "each event once, in the order given, the ratio its inputs allow";
  EXPECT_TRUE(
      SelectSimulatedEvents("none", AvailableSimulatedEvents(kCacheColumns))
          ->events.empty());
}

TEST(SimulatedEventsTest, EventsCallgrindCannotGiveAreErrorsThatSayWhy) {
  const std::vector<SimulatedEvent> instructions =
      AvailableSimulatedEvents(kInstructionColumns);
  absl::StatusOr<SimulatedEventSet> cache =
      SelectSimulatedEvents("instructions,LLC-load-misses", instructions);
  ASSERT_FALSE(cache.ok());
  EXPECT_THAT(cache.status().message(),
              HasSubstr("'LLC-load-misses' is not an event callgrind "
                        "simulates in this run (simulated: instructions)"));
  EXPECT_THAT(cache.status().message(), HasSubstr("--pmubench_simulate=cache"));

  absl::StatusOr<SimulatedEventSet> typo = SelectSimulatedEvents(
      "instrutions", AvailableSimulatedEvents(kCacheColumns));
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.status().message(), HasSubstr("did you mean instructions"));

  absl::StatusOr<SimulatedEventSet> cycles =
      SelectSimulatedEvents("cycles", instructions);
  ASSERT_FALSE(cycles.ok());
  EXPECT_THAT(cycles.status().message(),
              HasSubstr("cycles and times are not simulated"));
}

TEST(SimulatedEventsTest, ValuesSumTheirColumns) {
  absl::StatusOr<CallgrindDump> dump = ParseCallgrindDump(kCacheDump, "f");
  ASSERT_TRUE(dump.ok());
  const std::vector<SimulatedEvent> events =
      AvailableSimulatedEvents(dump->events);
  auto value = [&](const std::string& name) {
    for (const SimulatedEvent& e : events) {
      if (e.name == name) return SimulatedValue(e, *dump);
    }
    return uint64_t{999};
  };
  EXPECT_EQ(value("instructions"), 327696u);
  EXPECT_EQ(value("cache-misses"), 3u) << "ILmr + DLmr + DLmw";
  EXPECT_EQ(value("branches"), 65536u) << "Bc + Bi";
  EXPECT_EQ(value("branch-misses"), 10u) << "Bcm + Bim";
  EXPECT_EQ(value("L1-icache-load-misses"), 3u);
}

TEST(SimulatedSegmentsTest, WarmUpThenNThenNAndTwiceN) {
  EXPECT_THAT(SegmentsFor(10, 1).steps, ElementsAre(10, 10, 10, 20));
  EXPECT_EQ(SegmentsFor(10, 1).total(), 50);
  // A case's ->Iterations(100): Google Benchmark's batch is claimed whole,
  // the warm-up takes what the other segments do not.
  EXPECT_THAT(SegmentsFor(10, 100).steps, ElementsAre(60, 10, 10, 20));
  EXPECT_EQ(SegmentsFor(10, 100).total(), 100);
  EXPECT_THAT(SegmentsFor(0, 1).steps, ElementsAre(1, 1, 1, 2));
}

TEST(SimulationOptionsTest, ModesAndGeometryAreChecked) {
  EXPECT_EQ(*ParseSimulationMode("true"), SimulationMode::kInstructions);
  EXPECT_EQ(*ParseSimulationMode("instructions"),
            SimulationMode::kInstructions);
  EXPECT_EQ(*ParseSimulationMode("cache"), SimulationMode::kCache);
  absl::StatusOr<SimulationMode> bad = ParseSimulationMode("caches");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("--pmubench_simulate=caches: give 'instructions'"));

  EXPECT_TRUE(CheckCacheGeometry("x", "32768,8,64").ok());
  EXPECT_TRUE(CheckCacheGeometry("x", "8388608,16,64").ok());
  for (const char* bad_geometry :
       {"", "32768", "32768,8", "32768,8,64,1", "a,8,64", "0,8,64",
        "32768,0,64", "32768,8,0", "1000,8,64", "98304,8,64", "-1,8,64"}) {
    absl::Status s = CheckCacheGeometry("pmubench_simulate_d1", bad_geometry);
    EXPECT_FALSE(s.ok()) << "'" << bad_geometry << "' was accepted";
    EXPECT_THAT(s.message(), HasSubstr("--pmubench_simulate_d1="));
  }
}

TEST(SimulationOptionsTest, ValgrindCommandPinsTheGeometryForCache) {
  SimulationOptions options;
  EXPECT_THAT(CallgrindCommand(options, "/usr/bin/valgrind", "/tmp/d/out",
                               "/b/all", {"--x=1"}),
              ElementsAre("/usr/bin/valgrind", "-q", "--tool=callgrind",
                          "--collect-atstart=no", "--separate-threads=yes",
                          "--callgrind-out-file=/tmp/d/out", "--vgdb=no",
                          "--fair-sched=no", "/b/all", "--x=1"));
  EXPECT_EQ(GeometryText(options), "none");
  options.mode = SimulationMode::kCache;
  options.ll = "4194304,16,64";
  EXPECT_THAT(CallgrindCommand(options, "v", "o", "e", {}),
              ElementsAre("v", "-q", "--tool=callgrind", "--collect-atstart=no",
                          "--separate-threads=yes", "--callgrind-out-file=o",
                          "--vgdb=no", "--fair-sched=no", "--cache-sim=yes",
                          "--branch-sim=yes", "--I1=32768,8,64",
                          "--D1=32768,8,64", "--LL=4194304,16,64", "e"));
  EXPECT_EQ(GeometryText(options),
            "I1=32768,8,64 D1=32768,8,64 LL=4194304,16,64");
}

TEST(SimulationOptionsTest, CallgrindIsNotRunningHere) {
  // Natively the requests are no-ops and detection says no; the whole
  // backend runs under valgrind in simulate_e2e_test.cc.
  EXPECT_FALSE(Callgrind::Running());
}

}  // namespace
}  // namespace pmubench::internal
