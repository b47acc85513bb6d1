// Names of sampled addresses: the placeholders for code no symbol table
// names ([kernel], [vdso], [unknown]) from synthetic samples, and the
// demangling of what Abseil's demangler leaves mangled.
#include "framework/perf/symbols/symbolizer.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "framework/perf/sampling/perf_record.h"
#include "framework/perf/sampling/profile.h"
#include "framework/perf/symbols/code_region.h"
#include "framework/perf/symbols/debug_symbols.h"
#include "framework/perf/symbols/demangle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench::perf {
namespace symbolizer_test {

// Returns std::string and has external linkage, so its mangled name carries
// the ABI tag: _ZN8pmubench4perf15symbolizer_test13AbiTaggedNameB5cxx11Ev.
[[gnu::noinline]] std::string AbiTaggedName() {
  asm volatile("");
  return "x";
}

}  // namespace symbolizer_test
namespace {

using symbolizer_test::AbiTaggedName;
using ::testing::HasSubstr;
using ::testing::Not;

ParsedRecord Sample(uint16_t misc, uint64_t ip) {
  ParsedRecord r;
  r.kind = RecordKind::kSample;
  r.misc = misc;
  r.ip = ip;
  r.period = 1;
  return r;
}

const AddressRange kVdso{0x7fff0000'0000, 0x7fff0000'2000};

TEST(CodeRegionTest, TheHeaderSaysKernel) {
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_KERNEL, 0x401000, kVdso),
            CodeRegion::kKernel);
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_GUEST_KERNEL, 0x401000, kVdso),
            CodeRegion::kKernel);
}

TEST(CodeRegionTest, AnAddressInTheUpperHalfIsTheKernel) {
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_USER, 0xffffffff81000000, kVdso),
            CodeRegion::kKernel);
}

TEST(CodeRegionTest, TheVdsoRangeIsTheVdso) {
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_USER, kVdso.begin, kVdso),
            CodeRegion::kVdso);
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_USER, kVdso.end - 1, kVdso),
            CodeRegion::kVdso);
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_USER, kVdso.end, kVdso),
            CodeRegion::kUser);
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_USER, 0x401000, kVdso),
            CodeRegion::kUser);
  EXPECT_EQ(RegionOf(PERF_RECORD_MISC_USER, 0x401000, AddressRange{}),
            CodeRegion::kUser);
}

TEST(CodeRegionTest, VdsoLineOfMaps) {
  std::istringstream maps(
      "55d0c0a00000-55d0c0a21000 r-xp 00001000 fe:01 123   /bin/x\n"
      "7ffd1b5ee000-7ffd1b5f2000 r--p 00000000 00:00 0      [vvar]\n"
      "7ffd1b5f2000-7ffd1b5f4000 r-xp 00000000 00:00 0      [vdso]\n");
  const AddressRange vdso = VdsoInMaps(maps);
  EXPECT_EQ(vdso.begin, 0x7ffd1b5f2000u);
  EXPECT_EQ(vdso.end, 0x7ffd1b5f4000u);
  std::istringstream none("55d0c0a00000-55d0c0a21000 r-xp 0 fe:01 1 /bin/x\n");
  EXPECT_EQ(VdsoInMaps(none).end, 0u);
}

TEST(CodeRegionTest, ThisProcessHasTheVdsoTheKernelMapped) {
  const uint64_t base = getauxval(AT_SYSINFO_EHDR);  // vdso(7)
  if (base == 0) GTEST_SKIP() << "no vDSO in this process";
  EXPECT_TRUE(VdsoOfThisProcess().Contains(base));
}

// Synthetic samples through the ProfileBuilder: each placeholder says where
// its samples were.
TEST(SymbolizerTest, SamplesWithoutASymbolSayWhereTheyAre) {
  InitializeSymbolizer("/proc/self/exe");
  const uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
  ProfileBuilder builder;
  builder.Add(Sample(PERF_RECORD_MISC_KERNEL, 0xffffffff81000000));
  builder.Add(Sample(PERF_RECORD_MISC_KERNEL, 0xffffffff81000040));
  builder.Add(Sample(PERF_RECORD_MISC_USER, 0x1000));  // nothing mapped
  if (vdso != 0) builder.Add(Sample(PERF_RECORD_MISC_USER, vdso + 0x10));
  const Profile p = builder.Finish(SampleTally{}, 0);
  auto samples_of = [&p](const std::string& symbol) -> uint64_t {
    for (const FunctionSamples& f : p.top) {
      if (f.symbol == symbol) return f.samples;
    }
    return 0;
  };
  EXPECT_EQ(samples_of(kKernelSymbol), 2u);
  EXPECT_EQ(samples_of(kUnknownSymbol), 1u);
  if (vdso != 0) {
    EXPECT_EQ(samples_of(kVdsoSymbol), 1u);
  }
  EXPECT_TRUE(p.lines.empty());
}

TEST(SymbolizerTest, CallchainKernelFramesAreKernel) {
  Symbolizer names(kVdso);
  EXPECT_EQ(names.FunctionOf(0x401000, PERF_RECORD_MISC_KERNEL), kKernelSymbol);
  EXPECT_EQ(names.FunctionOf(kVdso.begin + 8), kVdsoSymbol);
}

TEST(DemangleTest, AbiTaggedNameAbseilLeavesMangled) {
  EXPECT_EQ(
      DemangleIfMangled("_ZN4absl7debian316strings_internal9CatPiecesB5cxx11E"
                        "St16initializer_listISt17basic_string_viewIcSt11char_"
                        "traitsIcEEE"),
      "absl::debian3::strings_internal::CatPieces[abi:cxx11]("
      "std::initializer_list<std::basic_string_view<char, "
      "std::char_traits<char> > >)");
}

TEST(DemangleTest, OtherNames) {
  EXPECT_EQ(DemangleIfMangled("_Z3Fibi"), "Fib(int)");
  EXPECT_EQ(DemangleIfMangled("_ZNKSt6vectorIiSaIiEE4sizeEv"),
            "std::vector<int, std::allocator<int> >::size() const");
  EXPECT_EQ(DemangleIfMangled("_Z3foov.cold"), "foo() [clone .cold]");
  // Not mangled, or not valid: unchanged.
  EXPECT_EQ(DemangleIfMangled("main"), "main");
  EXPECT_EQ(DemangleIfMangled("Fib(int)"), "Fib(int)");
  EXPECT_EQ(DemangleIfMangled("_Zjunk"), "_Zjunk");
  EXPECT_EQ(DemangleIfMangled(""), "");
}

// Through the symbolizer: a function of this binary whose name has an ABI
// tag comes out demangled, whichever demangler did it.
TEST(SymbolizerTest, AbiTaggedFunctionIsDemangled) {
  InitializeSymbolizer("/proc/self/exe");
  Symbolizer names;
  const std::string& name =
      names.FunctionOf(reinterpret_cast<uint64_t>(&AbiTaggedName));
  EXPECT_THAT(name, HasSubstr("AbiTaggedName[abi:cxx11]()"));
  EXPECT_NE(name.rfind("_Z", 0), 0u) << name;
}

// /usr/lib/debug/.build-id/NN/REST.debug of the loaded module whose path
// contains `module` (its NT_GNU_BUILD_ID note); "" when none.
std::string DebugFileOf(const char* module) {
  struct Search {
    const char* module;
    std::string path;
  } search{module, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (std::string(info->dlpi_name).find(s->module) == std::string::npos) {
          return 0;
        }
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          const char* p =
              reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
          const char* end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
            const auto* desc = reinterpret_cast<const unsigned char*>(
                p + sizeof(*note) + ((note->n_namesz + 3) & ~3u));
            if (note->n_type == NT_GNU_BUILD_ID && note->n_descsz > 1) {
              s->path =
                  absl::StrFormat("/usr/lib/debug/.build-id/%02x/", desc[0]);
              for (unsigned j = 1; j < note->n_descsz; ++j) {
                absl::StrAppendFormat(&s->path, "%02x", desc[j]);
              }
              s->path += ".debug";
              return 1;
            }
            p += sizeof(*note) + ((note->n_namesz + 3) & ~3u) +
                 ((note->n_descsz + 3) & ~3u);
          }
        }
        return 0;
      },
      &search);
  return search.path;
}

// The main thread's stack runs through __libc_start_call_main, a function
// internal to glibc: absent from libc.so.6's .dynsym, named in its debug
// file (libc6-dbg).
TEST(SymbolizerTest, LibraryInternalFunctionIsNamedFromItsDebugFile) {
  InitializeSymbolizer("/proc/self/exe");
  const std::string debug_file = DebugFileOf("libc.so");
  if (debug_file.empty() || access(debug_file.c_str(), R_OK) != 0) {
    GTEST_SKIP() << "no debug file for libc.so.6 (libc6-dbg): " << debug_file;
  }
  void* frames[128];
  const int n = backtrace(frames, 128);
  Symbolizer names;
  std::vector<std::string> in_libc;
  for (int i = 1; i < n; ++i) {
    const auto ip = reinterpret_cast<uint64_t>(frames[i]) - 1;  // the call
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(ip), &info) == 0 ||
        std::string(info.dli_fname).find("libc.so") == std::string::npos) {
      continue;
    }
    in_libc.push_back(names.FunctionOf(ip));
  }
  EXPECT_THAT(in_libc, ::testing::Contains("__libc_start_call_main"));
  EXPECT_THAT(in_libc, Not(::testing::Contains(kUnknownSymbol)));
}

TEST(DebugSymbolsTest, NoModuleNoName) {
  EXPECT_FALSE(DebugSymbolOf(0x1000).has_value());
}

}  // namespace
}  // namespace pmubench::perf
