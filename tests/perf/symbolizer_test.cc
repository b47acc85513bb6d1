// Names of sampled addresses: the placeholders for code no symbol table
// names ([kernel], [vdso], [unknown]) from synthetic samples, and the
// demangling of what Abseil's demangler leaves mangled.
#include "framework/perf/symbolizer.h"

#include <linux/perf_event.h>
#include <sys/auxv.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "framework/perf/code_region.h"
#include "framework/perf/demangle.h"
#include "framework/perf/perf_record.h"
#include "framework/perf/profile.h"
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

using ::testing::HasSubstr;
using symbolizer_test::AbiTaggedName;

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
  EXPECT_EQ(names.FunctionOf(0x401000, PERF_RECORD_MISC_KERNEL),
            kKernelSymbol);
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

}  // namespace
}  // namespace pmubench::perf
