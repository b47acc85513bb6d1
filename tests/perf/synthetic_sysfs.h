// A throwaway /sys/bus/event_source/devices tree for tests: PMU directories
// with type, format/*, events/* (+ .scale, .unit), cpus, cpumask and rdpmc
// files, removed again when the object goes away.
#ifndef PMUBENCH_TESTS_PERF_SYNTHETIC_SYSFS_H_
#define PMUBENCH_TESTS_PERF_SYNTHETIC_SYSFS_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "gtest/gtest.h"

namespace pmubench::perf {

class SyntheticSysfs {
 public:
  SyntheticSysfs() {
    std::string pattern = ::testing::TempDir() + "pmubench_sysfs_XXXXXX";
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
    root_ = pattern;
  }
  ~SyntheticSysfs() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  SyntheticSysfs(const SyntheticSysfs&) = delete;
  SyntheticSysfs& operator=(const SyntheticSysfs&) = delete;

  // Writes <root>/<relative_path> with `content` plus a newline, as sysfs
  // does, creating directories on the way.
  void Write(const std::string& relative_path, const std::string& content) {
    const std::filesystem::path path =
        std::filesystem::path(root_) / relative_path;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << content << "\n";
  }

  void AddPmu(const std::string& name, int type,
              const std::map<std::string, std::string>& formats,
              const std::map<std::string, std::string>& events = {}) {
    Write(name + "/type", std::to_string(type));
    for (const auto& [term, format] : formats) {
      Write(name + "/format/" + term, format);
    }
    for (const auto& [file, content] : events) {
      Write(name + "/events/" + file, content);
    }
  }

  // An Intel-style core PMU "cpu" (type 4) with single-range, multi-range,
  // config1 and config2 fields, aliases with .scale/.unit, and an uncore PMU.
  void AddIntelLikeMachine() {
    AddPmu("cpu", 4,
           {{"event", "config:0-7"},
            {"umask", "config:8-15"},
            {"edge", "config:18"},
            {"inv", "config:23"},
            {"cmask", "config:24-31"},
            {"wide", "config:0-7,21"},
            {"ldlat", "config1:0-15"},
            {"offcore_rsp", "config1:0-63"},
            {"fe", "config2:0-3"},
            {"future", "config5:0-3"}},  // a word this parser cannot express
           {{"mem-loads", "event=0xcd,umask=0x1,ldlat=3"},
            {"slots", "event=0x00,umask=0x4"},
            {"slots.scale", "4"},
            {"slots.unit", "slots"}});
    Write("cpu/rdpmc", "1");
    AddPmu("uncore_imc", 17,
           {{"event", "config:0-7"}, {"umask", "config:8-15"}},
           {{"data_reads", "event=0x04,umask=0x03"},
            {"data_reads.scale", "6.103515625e-5"},
            {"data_reads.unit", "MiB"}});
    Write("uncore_imc/cpumask", "0");
    AddPmu("software", 1, {});
  }

  // The arm64 QEMU guest's PMUs (Linux 6.1, -cpu max): one core PMU
  // armv8_pmuv3 (type 8) with the event, long and rdpmc format terms, the
  // common events cpu_cycles and inst_retired, and no rdpmc file (arm64's
  // knob is the sysctl kernel.perf_user_access).
  void AddArm64VirtMachine() {
    AddPmu("armv8_pmuv3", 8,
           {{"event", "config:0-15"},
            {"long", "config1:0"},
            {"rdpmc", "config1:1"}},
           {{"cpu_cycles", "event=0x0011"}, {"inst_retired", "event=0x0008"}});
    Write("armv8_pmuv3/cpus", "0");
    AddPmu("software", 1, {});
    AddPmu("breakpoint", 5, {});
    AddPmu("tracepoint", 2, {});
  }

  // A big.LITTLE SoC: four Cortex-A53 (CPUs 0-3) and two Cortex-A72 (4-5),
  // each cluster with its own core PMU, as an RK3399 shows them.
  void AddArm64BigLittleMachine() {
    for (const auto& [name, type, cpus] :
         {std::tuple<std::string, int, std::string>{"armv8_cortex_a53", 8,
                                                    "0-3"},
          {"armv8_cortex_a72", 9, "4-5"}}) {
      AddPmu(
          name, type,
          {{"event", "config:0-15"},
           {"long", "config1:0"},
           {"rdpmc", "config1:1"}},
          {{"cpu_cycles", "event=0x0011"}, {"inst_retired", "event=0x0008"}});
      Write(name + "/cpus", cpus);
    }
    AddPmu("software", 1, {});
  }

  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

}  // namespace pmubench::perf

#endif  // PMUBENCH_TESTS_PERF_SYNTHETIC_SYSFS_H_
