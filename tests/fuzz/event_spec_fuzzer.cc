// libFuzzer target: the event spec parser (ResolveEventList, SplitEventList)
// against a synthetic sysfs tree made once in a temporary directory: an
// x86-like core PMU with single, split and config1/config2 format fields, an
// alias with .scale and .unit, an uncore PMU and the software PMU. A spec
// resolves or is an error; a resolved event keeps the text it came from.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"

namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, std::string_view content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << content << "\n";
}

// The tree, removed again at exit.
class SyntheticTree {
 public:
  SyntheticTree() {
    std::string pattern =
        (fs::temp_directory_path() / "pmubench_fuzz_sysfs_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) abort();
    root_ = pattern;
    const fs::path cpu = root_ / "cpu";
    Write(cpu / "type", "4");
    Write(cpu / "format/event", "config:0-7");
    Write(cpu / "format/umask", "config:8-15");
    Write(cpu / "format/inv", "config:23");
    Write(cpu / "format/wide", "config:0-7,21");
    Write(cpu / "format/ldlat", "config1:0-15");
    Write(cpu / "format/fe", "config2:0-3");
    Write(cpu / "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
    Write(cpu / "events/slots", "event=0x00,umask=0x4");
    Write(cpu / "events/slots.scale", "4");
    Write(cpu / "events/slots.unit", "slots");
    Write(cpu / "cpus", "0-3");
    Write(cpu / "rdpmc", "1");
    const fs::path imc = root_ / "uncore_imc";
    Write(imc / "type", "17");
    Write(imc / "format/event", "config:0-7");
    Write(imc / "events/data_reads", "event=0x04");
    Write(imc / "events/data_reads.scale", "6.103515625e-5");
    Write(imc / "cpumask", "0");
    Write(root_ / "software/type", "1");
  }
  ~SyntheticTree() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

const pmubench::perf::PmuRegistry& Registry() {
  static const SyntheticTree* tree = new SyntheticTree();
  static const auto* pmus = [] {
    absl::StatusOr<pmubench::perf::PmuRegistry> loaded =
        pmubench::perf::PmuRegistry::Load(tree->root().string());
    if (!loaded.ok()) abort();
    return new pmubench::perf::PmuRegistry(*std::move(loaded));
  }();
  static const int cleanup = atexit([] { delete tree; });
  (void)cleanup;
  return *pmus;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const pmubench::perf::PmuRegistry& pmus = Registry();
  for (const std::string& spec : pmubench::perf::SplitEventList(text)) {
    absl::StatusOr<pmubench::perf::ResolvedEvent> event =
        pmubench::perf::ResolveEvent(spec, pmus);
    if (event.ok() && event->spec.empty()) abort();
  }
  (void)pmubench::perf::ResolveEventList(text, pmus);
  return 0;
}
