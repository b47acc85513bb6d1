// Event spec parsing and resolution, table-driven, against a synthetic sysfs
// tree and against this machine's real msr PMU.
#include "framework/perf/events/event_spec.h"

#include <linux/perf_event.h>

#include <cctype>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/perf/events/pmu.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/synthetic_sysfs.h"

namespace pmubench::perf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct ValidCase {
  std::string spec;
  uint32_t type;
  uint64_t config;
  uint64_t config1 = 0;
  uint64_t config2 = 0;
  // Modifiers: "" none, else the letters given.
  std::string modifiers = "";
};

void PrintTo(const ValidCase& c, std::ostream* os) { *os << c.spec; }

constexpr uint64_t Cache(uint64_t id, uint64_t op, uint64_t result) {
  return id | (op << 8) | (result << 16);
}

// One synthetic Intel-like tree shared by every case of a suite.
class SyntheticMachineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sysfs_ = new SyntheticSysfs();
    sysfs_->AddIntelLikeMachine();
  }
  static void TearDownTestSuite() {
    delete sysfs_;
    sysfs_ = nullptr;
  }
  static SyntheticSysfs* sysfs_;
};
SyntheticSysfs* SyntheticMachineTest::sysfs_ = nullptr;

class ValidSpecTest : public SyntheticMachineTest,
                      public ::testing::WithParamInterface<ValidCase> {};

TEST_P(ValidSpecTest, ResolvesToTheExpectedAttr) {
  const ValidCase& c = GetParam();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs_->root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  absl::StatusOr<ResolvedEvent> e = ResolveEvent(c.spec, *pmus);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->spec, c.spec);
  EXPECT_EQ(e->type, c.type);
  EXPECT_EQ(e->config, c.config) << std::hex << e->config;
  EXPECT_EQ(e->config1, c.config1);
  EXPECT_EQ(e->config2, c.config2);
  EXPECT_EQ(e->modifiers.explicit_, !c.modifiers.empty());
  if (!c.modifiers.empty()) {
    EXPECT_EQ(e->modifiers.user, c.modifiers.find('u') != std::string::npos);
    EXPECT_EQ(e->modifiers.kernel, c.modifiers.find('k') != std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Specs, ValidSpecTest,
    ::testing::Values(
        // Generic hardware, with perf's aliases and modifiers.
        ValidCase{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        ValidCase{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        ValidCase{"instructions:u", PERF_TYPE_HARDWARE,
                  PERF_COUNT_HW_INSTRUCTIONS, 0, 0, "u"},
        ValidCase{"branch-misses:k", PERF_TYPE_HARDWARE,
                  PERF_COUNT_HW_BRANCH_MISSES, 0, 0, "k"},
        ValidCase{"ref-cycles:uk", PERF_TYPE_HARDWARE,
                  PERF_COUNT_HW_REF_CPU_CYCLES, 0, 0, "uk"},
        ValidCase{"branch-instructions", PERF_TYPE_HARDWARE,
                  PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
        // Hardware cache: id | op << 8 | result << 16.
        ValidCase{"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
                  Cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                        PERF_COUNT_HW_CACHE_RESULT_MISS)},
        ValidCase{"LLC-loads", PERF_TYPE_HW_CACHE,
                  Cache(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
                        PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
        ValidCase{"dTLB-store-misses", PERF_TYPE_HW_CACHE,
                  Cache(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_WRITE,
                        PERF_COUNT_HW_CACHE_RESULT_MISS)},
        ValidCase{"l1-icache-load-misses", PERF_TYPE_HW_CACHE,
                  Cache(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
                        PERF_COUNT_HW_CACHE_RESULT_MISS)},
        ValidCase{"branch-load-misses:u", PERF_TYPE_HW_CACHE,
                  Cache(PERF_COUNT_HW_CACHE_BPU, PERF_COUNT_HW_CACHE_OP_READ,
                        PERF_COUNT_HW_CACHE_RESULT_MISS),
                  0, 0, "u"},
        ValidCase{
            "node-prefetches", PERF_TYPE_HW_CACHE,
            Cache(PERF_COUNT_HW_CACHE_NODE, PERF_COUNT_HW_CACHE_OP_PREFETCH,
                  PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
        // Software.
        ValidCase{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
        ValidCase{"page-faults:u", PERF_TYPE_SOFTWARE,
                  PERF_COUNT_SW_PAGE_FAULTS, 0, 0, "u"},
        ValidCase{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
        ValidCase{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
        ValidCase{"major-faults", PERF_TYPE_SOFTWARE,
                  PERF_COUNT_SW_PAGE_FAULTS_MAJ},
        // Raw.
        ValidCase{"r01c2", PERF_TYPE_RAW, 0x1c2},
        ValidCase{"rC0:u", PERF_TYPE_RAW, 0xc0, 0, 0, "u"},
        // sysfs terms: single ranges, single bits, bare terms (=1).
        ValidCase{"cpu/event=0xc0,umask=0x01/", 4, 0x1c0},
        ValidCase{"cpu/event=0x3c,inv,cmask=2/u", 4,
                  0x3c | (1ull << 23) | (2ull << 24), 0, 0, "u"},
        ValidCase{"cpu/event=60,edge/:k", 4, 60 | (1ull << 18), 0, 0, "k"},
        // Multi-range: the value's low 8 bits go to 0-7, bit 8 to bit 21.
        ValidCase{"cpu/wide=0x1ff/", 4, 0xff | (1ull << 21)},
        ValidCase{"cpu/wide=0x0ff/", 4, 0xff},
        ValidCase{"cpu/wide=0x100/", 4, 1ull << 21},
        // config1/config2 fields and the config words themselves.
        ValidCase{"cpu/event=0xb7,offcore_rsp=0x10003c0091/", 4, 0xb7,
                  0x10003c0091},
        ValidCase{"cpu/fe=3/", 4, 0, 0, 3},
        ValidCase{"cpu/config=0x1234,config1=5,config2=0x6/", 4, 0x1234, 5, 6},
        // Aliases expand to their terms; later terms override them.
        ValidCase{"cpu/mem-loads/", 4, 0x1cd, 3},
        ValidCase{"cpu/mem-loads,ldlat=64/", 4, 0x1cd, 64},
        ValidCase{"cpu/mem-loads,umask=2/uk", 4, 0x2cd, 3, 0, "uk"},
        ValidCase{"uncore_imc/data_reads/", 17, 0x304}),
    [](const ::testing::TestParamInfo<ValidCase>& info) {
      std::string name;
      for (char c : info.param.spec) {
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      }
      return absl::StrCat(info.index, "_", name);
    });

struct InvalidCase {
  std::string spec;
  absl::StatusCode code;
  std::vector<std::string> substrings;  // the message must contain each
  int column = 0;  // 1-based column of the caret; 0 when not pointed at
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.spec; }

class InvalidSpecTest : public SyntheticMachineTest,
                        public ::testing::WithParamInterface<InvalidCase> {};

// The caret line of a SpecError: two spaces, column-1 spaces, '^'.
int CaretColumn(std::string_view message) {
  const size_t caret = message.rfind('^');
  if (caret == std::string_view::npos) return 0;
  const size_t line_start = message.rfind('\n', caret);
  return static_cast<int>(caret - line_start - 1) - 2 + 1;
}

TEST_P(InvalidSpecTest, FailsWithAMessageThatNamesTheSpecAndTheFix) {
  const InvalidCase& c = GetParam();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs_->root());
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<ResolvedEvent> e = ResolveEvent(c.spec, *pmus);
  ASSERT_FALSE(e.ok()) << c.spec << " resolved to config " << e->config;
  EXPECT_EQ(e.status().code(), c.code) << e.status();
  const std::string message(e.status().message());
  if (!c.spec.empty()) {
    EXPECT_THAT(message, HasSubstr("\"" + c.spec + "\""));
  }
  for (const std::string& s : c.substrings) EXPECT_THAT(message, HasSubstr(s));
  if (c.column != 0) {
    EXPECT_THAT(message, HasSubstr(absl::StrCat("at column ", c.column, ":")));
    EXPECT_EQ(CaretColumn(message), c.column) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Specs, InvalidSpecTest,
    ::testing::Values(
        InvalidCase{"", absl::StatusCode::kInvalidArgument, {"empty"}},
        InvalidCase{"cyclez",
                    absl::StatusCode::kNotFound,
                    {"unknown event", "did you mean cycles"},
                    1},
        InvalidCase{"L1-dcache-load-mises",
                    absl::StatusCode::kNotFound,
                    {"did you mean L1-dcache-load-misses"},
                    1},
        InvalidCase{
            "task-clok", absl::StatusCode::kNotFound, {"task-clock"}, 1},
        InvalidCase{
            "mem-loads", absl::StatusCode::kNotFound, {"cpu/mem-loads/"}, 1},
        InvalidCase{"rxyz", absl::StatusCode::kNotFound, {"raw rNNNN"}, 1},
        InvalidCase{"cycles:x",
                    absl::StatusCode::kInvalidArgument,
                    {"unsupported modifier 'x'", "u, k, uk"},
                    8},
        InvalidCase{"cycles:uu",
                    absl::StatusCode::kInvalidArgument,
                    {"given twice"},
                    9},
        InvalidCase{"cycles:",
                    absl::StatusCode::kInvalidArgument,
                    {"nothing after ':'"},
                    8},
        InvalidCase{"task clock",
                    absl::StatusCode::kInvalidArgument,
                    {"whitespace"},
                    5},
        InvalidCase{"cpu/event=0x100/",
                    absl::StatusCode::kInvalidArgument,
                    {"does not fit", "8 bits", "config:0-7"},
                    11},
        InvalidCase{"cpu/wide=0x200/",
                    absl::StatusCode::kInvalidArgument,
                    {"9 bits", "config:0-7,21"},
                    10},
        InvalidCase{"cpu/evnt=1/",
                    absl::StatusCode::kNotFound,
                    {"unknown term \"evnt\"", "did you mean event", "umask"},
                    5},
        InvalidCase{"cpu/event=1,umsk=2/",
                    absl::StatusCode::kNotFound,
                    {"did you mean umask"},
                    13},
        InvalidCase{"cpu/future=1/",
                    absl::StatusCode::kNotFound,
                    {"unknown term \"future\""},
                    5},
        InvalidCase{"cpu/event=0xzz/",
                    absl::StatusCode::kInvalidArgument,
                    {"\"0xzz\"", "not a decimal or 0x-hex number"},
                    11},
        InvalidCase{"cpu/event=/",
                    absl::StatusCode::kInvalidArgument,
                    {"not a decimal"},
                    11},
        InvalidCase{"cpu/event=1",
                    absl::StatusCode::kInvalidArgument,
                    {"missing closing '/'"},
                    12},
        InvalidCase{"cpx/event=1/",
                    absl::StatusCode::kNotFound,
                    {"no PMU named \"cpx\"", "did you mean cpu", "uncore_imc"},
                    1},
        InvalidCase{
            "cpu//", absl::StatusCode::kInvalidArgument, {"no terms"}, 5},
        InvalidCase{"cpu/event=1,,umask=1/",
                    absl::StatusCode::kInvalidArgument,
                    {"empty term"},
                    13},
        InvalidCase{"cpu/event=1/p",
                    absl::StatusCode::kInvalidArgument,
                    {"unsupported modifier 'p'"},
                    13},
        InvalidCase{"uncore_imc/data_read/",
                    absl::StatusCode::kNotFound,
                    {"did you mean data_reads"},
                    12}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) {
      std::string name;
      for (char c : info.param.spec) {
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      }
      return absl::StrCat(info.index, "_", name);
    });

TEST(EventSpecTest, AliasesCarryScaleAndUnit) {
  SyntheticSysfs sysfs;
  sysfs.AddIntelLikeMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<ResolvedEvent> reads =
      ResolveEvent("uncore_imc/data_reads/", *pmus);
  ASSERT_TRUE(reads.ok()) << reads.status();
  EXPECT_DOUBLE_EQ(reads->scale, 6.103515625e-5);
  EXPECT_EQ(reads->unit, "MiB");
  EXPECT_EQ(reads->pmu_name, "uncore_imc");
  EXPECT_FALSE(reads->needs_hardware_pmu);
  absl::StatusOr<ResolvedEvent> slots = ResolveEvent("cpu/slots/", *pmus);
  ASSERT_TRUE(slots.ok());
  EXPECT_DOUBLE_EQ(slots->scale, 4.0);
  EXPECT_EQ(slots->unit, "slots");
  EXPECT_TRUE(slots->needs_hardware_pmu);
  absl::StatusOr<ResolvedEvent> plain = ResolveEvent("cpu/event=1/", *pmus);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->scale, 1.0);
  EXPECT_EQ(plain->unit, "");
}

TEST(EventSpecTest, AliasWithABadScaleIsAnErrorNamingTheFile) {
  SyntheticSysfs sysfs;
  sysfs.AddPmu("power", 20, {{"event", "config:0-7"}},
               {{"energy-pkg", "event=0x02"}, {"energy-pkg.scale", "nan"}});
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<ResolvedEvent> e = ResolveEvent("power/energy-pkg/", *pmus);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(e.status().message(), HasSubstr("energy-pkg.scale = \"nan\""));
  EXPECT_THAT(e.status().message(), HasSubstr("power/event=0x02/"));
}

TEST(EventSpecTest, HardwareNeedsAPmuSoftwareDoesNot) {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load("/nonexistent/sysfs");
  ASSERT_TRUE(pmus.ok());
  for (const char* spec : {"cycles", "LLC-load-misses", "r00c0"}) {
    absl::StatusOr<ResolvedEvent> e = ResolveEvent(spec, *pmus);
    ASSERT_TRUE(e.ok()) << spec;
    EXPECT_TRUE(e->needs_hardware_pmu) << spec;
  }
  absl::StatusOr<ResolvedEvent> e = ResolveEvent("task-clock", *pmus);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->needs_hardware_pmu);
  EXPECT_EQ(e->pmu_name, "software");
}

TEST(EventSpecTest, HybridMachineTargetsTheCorePmu) {
  SyntheticSysfs sysfs;
  sysfs.AddPmu("cpu_core", 4, {{"event", "config:0-7"}});
  sysfs.AddPmu("cpu_atom", 10, {{"event", "config:0-7"}});
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<ResolvedEvent> cycles = ResolveEvent("cycles", *pmus);
  ASSERT_TRUE(cycles.ok());
  EXPECT_EQ(cycles->type, uint32_t{PERF_TYPE_HARDWARE});
  // linux/perf_event.h: PERF_PMU_TYPE_SHIFT puts the PMU type in bits 32-63.
  EXPECT_EQ(cycles->config,
            (uint64_t{4} << PERF_PMU_TYPE_SHIFT) | PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_EQ(cycles->pmu_name, "cpu_core");
  absl::StatusOr<ResolvedEvent> misses =
      ResolveEvent("L1-dcache-load-misses", *pmus);
  ASSERT_TRUE(misses.ok());
  EXPECT_EQ(misses->config >> PERF_PMU_TYPE_SHIFT, 4u);
  absl::StatusOr<ResolvedEvent> raw = ResolveEvent("r00c0", *pmus);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->type, 4u);
  EXPECT_EQ(raw->config, 0xc0u);
  absl::StatusOr<ResolvedEvent> atom =
      ResolveEvent("cpu_atom/event=0xc0/", *pmus);
  ASSERT_TRUE(atom.ok());
  EXPECT_EQ(atom->type, 10u);
  EXPECT_TRUE(atom->needs_hardware_pmu);
  // Software events are not tied to a core type.
  absl::StatusOr<ResolvedEvent> clock = ResolveEvent("task-clock", *pmus);
  ASSERT_TRUE(clock.ok());
  EXPECT_EQ(clock->config, uint64_t{PERF_COUNT_SW_TASK_CLOCK});
}

TEST(EventSpecTest, Arm64CoreEventsAskForUserReadsThroughTheRdpmcTerm) {
  SyntheticSysfs sysfs;
  sysfs.AddArm64VirtMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  // format/rdpmc is config1:1: every event the core PMU counts gets it.
  for (const char* spec :
       {"instructions", "cycles", "L1-dcache-load-misses", "r0008",
        "armv8_pmuv3/inst_retired/", "armv8_pmuv3/event=0x11/u"}) {
    absl::StatusOr<ResolvedEvent> e = ResolveEvent(spec, *pmus);
    ASSERT_TRUE(e.ok()) << spec << ": " << e.status();
    EXPECT_EQ(e->config1, uint64_t{2}) << spec;  // rdpmc, not long
    EXPECT_TRUE(e->user_read_term_set) << spec;
    EXPECT_EQ(e->core_pmu, "armv8_pmuv3") << spec;
    EXPECT_TRUE(e->needs_hardware_pmu) << spec;
  }
  absl::StatusOr<ResolvedEvent> instructions =
      ResolveEvent("instructions", *pmus);
  EXPECT_EQ(instructions->type, uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(instructions->config, uint64_t{PERF_COUNT_HW_INSTRUCTIONS});
  absl::StatusOr<ResolvedEvent> alias =
      ResolveEvent("armv8_pmuv3/inst_retired/", *pmus);
  EXPECT_EQ(alias->type, 8u);
  EXPECT_EQ(alias->config, 8u);
  // What the spec wrote for the term, or for config1 as a whole, stays.
  absl::StatusOr<ResolvedEvent> off =
      ResolveEvent("armv8_pmuv3/event=0x8,rdpmc=0/", *pmus);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->config1, 0u);
  EXPECT_FALSE(off->user_read_term_set);
  absl::StatusOr<ResolvedEvent> word =
      ResolveEvent("armv8_pmuv3/event=0x8,config1=1/", *pmus);
  ASSERT_TRUE(word.ok()) << word.status();
  EXPECT_EQ(word->config1, 1u);
  absl::StatusOr<ResolvedEvent> both =
      ResolveEvent("armv8_pmuv3/event=0x8,long/", *pmus);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->config1, 3u);  // long as written, rdpmc added
  // Software events are not the core PMU's: nothing set.
  absl::StatusOr<ResolvedEvent> clock = ResolveEvent("task-clock", *pmus);
  EXPECT_EQ(clock->config1, 0u);
  EXPECT_FALSE(clock->user_read_term_set);
  EXPECT_EQ(clock->core_pmu, "");
}

TEST(EventSpecTest, X86CorePmuHasNoRdpmcTermSoNothingIsSet) {
  SyntheticSysfs sysfs;
  sysfs.AddIntelLikeMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  for (const char* spec : {"cycles", "r00c0", "cpu/event=0xc0/"}) {
    absl::StatusOr<ResolvedEvent> e = ResolveEvent(spec, *pmus);
    ASSERT_TRUE(e.ok()) << spec;
    EXPECT_EQ(e->config1, 0u) << spec;
    EXPECT_FALSE(e->user_read_term_set) << spec;
    EXPECT_EQ(e->core_pmu, "cpu") << spec;
  }
  EXPECT_EQ(ResolveEvent("uncore_imc/data_reads/", *pmus)->core_pmu, "");
}

TEST(EventSpecTest, Arm64BigLittleTargetsTheBigCoresPmu) {
  SyntheticSysfs sysfs;
  sysfs.AddArm64BigLittleMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<ResolvedEvent> cycles = ResolveEvent("cycles", *pmus);
  ASSERT_TRUE(cycles.ok());
  EXPECT_EQ(cycles->type, uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(cycles->config,
            (uint64_t{9} << PERF_PMU_TYPE_SHIFT) | PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_EQ(cycles->config1, 2u);
  EXPECT_EQ(cycles->pmu_name, "armv8_cortex_a72");
  absl::StatusOr<ResolvedEvent> little =
      ResolveEvent("armv8_cortex_a53/inst_retired/", *pmus);
  ASSERT_TRUE(little.ok());
  EXPECT_EQ(little->type, 8u);
  EXPECT_EQ(little->config1, 2u);
  EXPECT_EQ(little->core_pmu, "armv8_cortex_a53");
  EXPECT_TRUE(little->needs_hardware_pmu);
}

TEST(EventSpecTest, SplitEventListKeepsCommasInsideSlashes) {
  EXPECT_THAT(SplitEventList("a,b"), ElementsAre("a", "b"));
  EXPECT_THAT(SplitEventList("cpu/event=1,umask=2/u,cycles"),
              ElementsAre("cpu/event=1,umask=2/u", "cycles"));
  EXPECT_THAT(SplitEventList("msr/tsc/,cpu/a=1,b=2/,x"),
              ElementsAre("msr/tsc/", "cpu/a=1,b=2/", "x"));
  EXPECT_THAT(SplitEventList(" a , b "), ElementsAre("a", "b"));
  EXPECT_THAT(SplitEventList("a,,b"), ElementsAre("a", "", "b"));
  EXPECT_THAT(SplitEventList(""), ElementsAre(""));
}

TEST(EventSpecTest, ResolveEventListKeepsOrderAndRejectsBadLists) {
  SyntheticSysfs sysfs;
  sysfs.AddIntelLikeMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  absl::StatusOr<std::vector<ResolvedEvent>> events =
      ResolveEventList("task-clock,cpu/event=1,umask=2/u,cycles", *pmus);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].spec, "task-clock");
  EXPECT_EQ((*events)[1].spec, "cpu/event=1,umask=2/u");
  EXPECT_EQ((*events)[1].config, 0x201u);
  EXPECT_EQ((*events)[2].spec, "cycles");

  absl::StatusOr<std::vector<ResolvedEvent>> empty =
      ResolveEventList("task-clock,,cycles", *pmus);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("empty entry"));
  absl::StatusOr<std::vector<ResolvedEvent>> twice =
      ResolveEventList("cycles,task-clock,cycles", *pmus);
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.status().message(), HasSubstr("\"cycles\" twice"));
  absl::StatusOr<std::vector<ResolvedEvent>> bad =
      ResolveEventList("cycles,cyclez", *pmus);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(bad.status().message(), HasSubstr("\"cyclez\""));
}

TEST(EventSpecTest, KnownEventNamesListEveryCacheNameAndTheAliases) {
  SyntheticSysfs sysfs;
  sysfs.AddIntelLikeMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  const std::vector<std::string> names = KnownEventNames(*pmus);
  int cache_names = 0;
  for (const std::string& name : names) {
    absl::StatusOr<ResolvedEvent> e = ResolveEvent(name, *pmus);
    ASSERT_TRUE(e.ok()) << name << ": " << e.status();
    if (e->type == PERF_TYPE_HW_CACHE) ++cache_names;
  }
  // 7 caches x 3 operations x {accesses, misses}, as `perf list hwcache`.
  EXPECT_EQ(cache_names, 42);
  EXPECT_THAT(names, ::testing::Contains("cpu/mem-loads/"));
  EXPECT_THAT(names, ::testing::Contains("uncore_imc/data_reads/"));
  EXPECT_THAT(names, ::testing::Contains("LLC-prefetch-misses"));
  EXPECT_THAT(names, ::testing::Contains("cgroup-switches"));
}

// ---- This machine's real msr PMU. ----

class RealMsrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
    ASSERT_TRUE(pmus.ok()) << pmus.status();
    pmus_ = *std::move(pmus);
    if (pmus_.Find("msr") == nullptr) {
      GTEST_SKIP() << "no msr PMU under " << kDefaultSysfsRoot;
    }
  }
  PmuRegistry pmus_;
};

TEST_F(RealMsrTest, ResolvesAliasesAndTermsThroughRealSysfs) {
  const Pmu* msr = pmus_.Find("msr");
  ASSERT_TRUE(msr->formats.count("event"));
  struct Case {
    const char* spec;
    bool ok;
    uint64_t config;
  };
  const Case cases[] = {
      {"msr/tsc/", true, 0},
      {"msr/event=0x0/", true, 0},
      {"msr/event=4/u", true, 4},
      {"msr/config=2/", true, 2},
      {"msr/tsx/", false, 0},
      {"msr/umask=1/", false, 0},
      {"msr/event=0x10000000000000000/", false, 0},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ResolvedEvent> e = ResolveEvent(c.spec, pmus_);
    EXPECT_EQ(e.ok(), c.ok) << c.spec << ": " << e.status();
    if (!e.ok() || !c.ok) continue;
    EXPECT_EQ(e->type, msr->type) << c.spec;
    EXPECT_EQ(e->config, c.config) << c.spec;
    EXPECT_EQ(e->pmu_name, "msr");
    EXPECT_FALSE(e->needs_hardware_pmu);
  }
  if (msr->aliases.count("tsc")) {
    absl::StatusOr<ResolvedEvent> typo = ResolveEvent("msr/tsx/", pmus_);
    EXPECT_THAT(typo.status().message(), HasSubstr("did you mean tsc"));
    absl::StatusOr<ResolvedEvent> bare = ResolveEvent("tsc", pmus_);
    EXPECT_THAT(bare.status().message(), HasSubstr("msr/tsc/"));
  }
}

}  // namespace
}  // namespace pmubench::perf
