// PMU discovery through sysfs: a synthetic tree (Intel-like, hybrid, none)
// and this machine's real tree.
#include "framework/perf/events/pmu.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/perf/synthetic_sysfs.h"

namespace pmubench::perf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct FormatCase {
  std::string text;
  std::vector<BitRange> ranges;  // empty: must be rejected
};

TEST(PmuTest, ParseFormatTable) {
  const FormatCase cases[] = {
      {"config:0-7", {{0, 0, 7}}},
      {"config:23", {{0, 23, 23}}},
      {"config:0-7,21", {{0, 0, 7}, {0, 21, 21}}},
      {"config:0-7,32-35", {{0, 0, 7}, {0, 32, 35}}},
      {"config1:0-63", {{1, 0, 63}}},
      {"config2:0-3\n", {{2, 0, 3}}},
      {"config3:0-3", {}},
      {"config:7-0", {}},
      {"config:0-64", {}},
      {"config", {}},
      {"config:a-b", {}},
      {"config:", {}},
  };
  for (const FormatCase& c : cases) {
    absl::StatusOr<FormatField> f = PmuRegistry::ParseFormat(c.text);
    ASSERT_EQ(f.ok(), !c.ranges.empty()) << c.text << ": " << f.status();
    if (!f.ok()) {
      EXPECT_THAT(f.status().message(), HasSubstr("format")) << c.text;
      continue;
    }
    ASSERT_EQ(f->ranges.size(), c.ranges.size()) << c.text;
    for (size_t i = 0; i < c.ranges.size(); ++i) {
      EXPECT_EQ(f->ranges[i].word, c.ranges[i].word) << c.text;
      EXPECT_EQ(f->ranges[i].lo, c.ranges[i].lo) << c.text;
      EXPECT_EQ(f->ranges[i].hi, c.ranges[i].hi) << c.text;
    }
  }
}

TEST(PmuTest, ParseCpuList) {
  EXPECT_THAT(*PmuRegistry::ParseCpuList("0-3,8,10-11\n"),
              ElementsAre(0, 1, 2, 3, 8, 10, 11));
  EXPECT_THAT(*PmuRegistry::ParseCpuList("5"), ElementsAre(5));
  EXPECT_TRUE(PmuRegistry::ParseCpuList("")->empty());
  EXPECT_FALSE(PmuRegistry::ParseCpuList("3-1").ok());
  EXPECT_FALSE(PmuRegistry::ParseCpuList("x").ok());
}

// What the kernel never writes is an error naming the part: signs, spaces,
// hex, empty parts, parts out of order or overlapping.
TEST(PmuTest, ParseCpuListRejectsWhatTheKernelNeverWrites) {
  for (const char* text :
       {"+5", "1, 2", "0x5", "-5", "5-", "-", ",", "1,,2", "1-2-3", "4,3",
        "3,3", "0-3,2-5", "0-3,3", "99999999999999999999", "\xff"}) {
    absl::StatusOr<std::vector<int>> cpus = PmuRegistry::ParseCpuList(text);
    EXPECT_FALSE(cpus.ok()) << text;
    if (!cpus.ok()) {
      EXPECT_THAT(cpus.status().message(), HasSubstr("cpu list")) << text;
    }
  }
  EXPECT_THAT(*PmuRegistry::ParseCpuList("0-1,3-3,5"), ElementsAre(0, 1, 3, 5));
}

// CPU numbers are below kCpuLimit (65536): the largest int looped forever
// (the loop counter overflowed) and a huge range allocated without bound.
TEST(PmuTest, ParseCpuListIsBounded) {
  EXPECT_THAT(*PmuRegistry::ParseCpuList("65535"), ElementsAre(65535));
  EXPECT_EQ(PmuRegistry::ParseCpuList("0-65535")->size(), 65536u);
  for (const char* text : {"2147483647", "2147483646-2147483647",
                           "0-2147483647", "0-4294967295", "65536"}) {
    absl::StatusOr<std::vector<int>> cpus = PmuRegistry::ParseCpuList(text);
    ASSERT_FALSE(cpus.ok()) << text;
    EXPECT_THAT(cpus.status().message(), HasSubstr("below 65536")) << text;
  }
}

TEST(PmuTest, LoadsTypesFormatsAndAliasesFromASyntheticTree) {
  SyntheticSysfs sysfs;
  sysfs.AddIntelLikeMachine();
  sysfs.Write("not_a_pmu/readme", "no type file: skipped");
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  EXPECT_THAT(pmus->Names(), ElementsAre("cpu", "software", "uncore_imc"));
  const Pmu* cpu = pmus->Find("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->type, 4u);
  ASSERT_TRUE(cpu->formats.count("wide"));
  EXPECT_EQ(cpu->formats.at("wide").ranges.size(), 2u);
  EXPECT_FALSE(cpu->formats.count("future"));  // config5: not expressible
  ASSERT_TRUE(cpu->aliases.count("slots"));
  EXPECT_EQ(cpu->aliases.at("slots").terms, "event=0x00,umask=0x4");
  EXPECT_DOUBLE_EQ(cpu->aliases.at("slots").scale, 4.0);
  EXPECT_EQ(cpu->aliases.at("slots").unit, "slots");
  EXPECT_FALSE(cpu->aliases.count("slots.scale"));
  EXPECT_EQ(cpu->aliases.at("mem-loads").scale, 1.0);
  EXPECT_EQ(pmus->CorePmu(), cpu);
  EXPECT_TRUE(pmus->HasHardwarePmu());
  EXPECT_FALSE(pmus->IsHybrid());
  EXPECT_EQ(pmus->RdpmcSetting(), 1);
  EXPECT_EQ(pmus->Find("nope"), nullptr);
  EXPECT_THAT(*pmus->CpuList("uncore_imc"), ElementsAre(0));
  EXPECT_EQ(pmus->CpuList("cpu").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(pmus->CpuList("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(PmuTest, HybridMachineHasTwoCorePmusAndTheirCpus) {
  SyntheticSysfs sysfs;
  sysfs.AddPmu("cpu_core", 4, {{"event", "config:0-7"}});
  sysfs.AddPmu("cpu_atom", 10, {{"event", "config:0-7"}});
  sysfs.Write("cpu_core/cpus", "0-7");
  sysfs.Write("cpu_atom/cpus", "8-11");
  sysfs.Write("cpu_core/rdpmc", "2");
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  ASSERT_NE(pmus->CorePmu(), nullptr);
  EXPECT_EQ(pmus->CorePmu()->name, "cpu_core");
  EXPECT_TRUE(pmus->IsHybrid());
  EXPECT_EQ(pmus->RdpmcSetting(), 2);
  EXPECT_THAT(*pmus->CpuList("cpu_atom"), ElementsAre(8, 9, 10, 11));
  EXPECT_EQ(pmus->CpuList("cpu_core")->size(), 8u);
}

TEST(PmuTest, ArmCorePmuIsFoundByName) {
  SyntheticSysfs sysfs;
  sysfs.AddPmu("armv8_pmuv3_0", 8, {{"event", "config:0-15"}});
  sysfs.AddPmu("software", 1, {});
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok());
  ASSERT_NE(pmus->CorePmu(), nullptr);
  EXPECT_EQ(pmus->CorePmu()->name, "armv8_pmuv3_0");
}

TEST(PmuTest, Arm64VirtMachineHasOneCorePmuAndNoRdpmcFile) {
  SyntheticSysfs sysfs;
  sysfs.AddArm64VirtMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  ASSERT_NE(pmus->CorePmu(), nullptr);
  EXPECT_EQ(pmus->CorePmu()->name, "armv8_pmuv3");
  EXPECT_TRUE(pmus->CorePmu()->is_core);
  EXPECT_THAT(pmus->CorePmu()->cpus, ElementsAre(0));
  EXPECT_TRUE(pmus->HasHardwarePmu());
  EXPECT_FALSE(pmus->IsHybrid());
  EXPECT_FALSE(pmus->RdpmcSetting().has_value());
  EXPECT_FALSE(pmus->Find("software")->is_core);
  EXPECT_FALSE(pmus->Find("breakpoint")->is_core);
}

TEST(PmuTest, Arm64BigLittleIsHybridAndPicksTheBigCores) {
  SyntheticSysfs sysfs;
  sysfs.AddArm64BigLittleMachine();
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  EXPECT_TRUE(pmus->IsHybrid());
  ASSERT_EQ(pmus->CorePmus().size(), 2u);
  EXPECT_EQ(pmus->CorePmus()[0]->name, "armv8_cortex_a53");
  // The cluster with the highest-numbered CPUs: the big cores.
  ASSERT_NE(pmus->CorePmu(), nullptr);
  EXPECT_EQ(pmus->CorePmu()->name, "armv8_cortex_a72");
  EXPECT_THAT(*pmus->CpuList("armv8_cortex_a72"), ElementsAre(4, 5));
}

TEST(PmuTest, ArmNamedPmuWithoutCpusOrEventTermIsNotACorePmu) {
  SyntheticSysfs sysfs;
  sysfs.AddPmu("armv8_other", 12, {{"config", "config:0-63"}});
  sysfs.AddPmu("armv9_cortex_x2", 13, {{"event", "config:0-15"}});
  sysfs.AddPmu("apple_firestorm_pmu", 14, {});
  sysfs.Write("apple_firestorm_pmu/cpus", "4-7");
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  EXPECT_FALSE(pmus->Find("armv8_other")->is_core);
  EXPECT_TRUE(pmus->Find("armv9_cortex_x2")->is_core);
  EXPECT_TRUE(pmus->Find("apple_firestorm_pmu")->is_core);
  EXPECT_EQ(pmus->CorePmu()->name, "apple_firestorm_pmu");  // CPUs 4-7
  EXPECT_TRUE(pmus->IsHybrid());
}

TEST(PmuTest, AliasScalesThatAreNotPositiveFiniteAreRejected) {
  SyntheticSysfs sysfs;
  std::map<std::string, std::string> events = {{"good", "event=0x1"},
                                               {"good.scale", "2.5e-10"}};
  for (const char* bad : {"nan", "inf", "-inf", "-1", "0", "abc"}) {
    const std::string name =
        std::string("bad_") + (bad[0] == '-' ? bad + 1 : bad);
    events[name] = "event=0x2";
    events[name + ".scale"] = bad;
  }
  sysfs.AddPmu("power", 20, {{"event", "config:0-7"}}, events);
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  const Pmu* power = pmus->Find("power");
  EXPECT_DOUBLE_EQ(power->aliases.at("good").scale, 2.5e-10);
  EXPECT_EQ(power->aliases.at("good").bad_scale, "");
  for (const auto& [name, alias] : power->aliases) {
    if (name == "good") continue;
    EXPECT_EQ(alias.scale, 1.0) << name;
    EXPECT_THAT(alias.bad_scale, HasSubstr(name + ".scale = ")) << name;
  }
}

TEST(PmuTest, MachineWithoutCorePmuAndMissingRoot) {
  SyntheticSysfs sysfs;
  sysfs.AddPmu("software", 1, {});
  sysfs.AddPmu("msr", 10, {{"event", "config:0-63"}}, {{"tsc", "event=0x00"}});
  absl::StatusOr<PmuRegistry> vm = PmuRegistry::Load(sysfs.root());
  ASSERT_TRUE(vm.ok());
  EXPECT_EQ(vm->CorePmu(), nullptr);
  EXPECT_FALSE(vm->HasHardwarePmu());
  EXPECT_FALSE(vm->RdpmcSetting().has_value());

  absl::StatusOr<PmuRegistry> none =
      PmuRegistry::Load(sysfs.root() + "/absent");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->Names().empty());
  EXPECT_FALSE(none->HasHardwarePmu());
}

TEST(PmuTest, RealSysfsMatchesTheKernelsFiles) {
  absl::StatusOr<PmuRegistry> pmus = PmuRegistry::Load();
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  const Pmu* software = pmus->Find("software");
  if (software == nullptr)
    GTEST_SKIP() << "no " << kDefaultSysfsRoot << "/software";
  EXPECT_EQ(software->type, 1u);  // PERF_TYPE_SOFTWARE
  if (const Pmu* msr = pmus->Find("msr")) {
    ASSERT_TRUE(msr->formats.count("event"));
    EXPECT_EQ(msr->formats.at("event").ranges[0].word, 0);
  }
  // The core PMU is there exactly when sysfs has cpu (or cpu_core/arm).
  const bool has_cpu =
      pmus->Find("cpu") != nullptr || pmus->Find("cpu_core") != nullptr;
  if (has_cpu) {
    EXPECT_TRUE(pmus->HasHardwarePmu());
  }
  std::printf(
      "PMUs here: %s; core PMU: %s\n",
      [&] {
        std::string all;
        for (const std::string& n : pmus->Names()) all += n + " ";
        return all;
      }()
          .c_str(),
      pmus->CorePmu() ? pmus->CorePmu()->name.c_str() : "none");
}

}  // namespace
}  // namespace pmubench::perf
