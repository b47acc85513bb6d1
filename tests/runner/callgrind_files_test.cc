// The callgrind backend's files: what Callgrind::TakeDumps reads and deletes
// in the dump directory (only its own regular dumps: never through a link,
// never a FIFO, nothing of unbounded size), which directories
// CheckDumpDirectory accepts, and cache geometries checked as valgrind
// checks them (against real valgrind, where it is installed). The same
// attacks from a real second user, under real valgrind:
// simulate_shared_dir_test.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "framework/runner/cli/simulation_options.h"
#include "framework/runner/simulate/callgrind.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/text_of_runs.h"

namespace pmubench::internal {
namespace {

using ::pmubench::testing::ListDir;
using ::pmubench::testing::MakePrivateDir;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::RemoveDirAndFiles;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// A dump as callgrind 3.19 writes one for a client request.
std::string DumpText(const std::string& label, int part) {
  return "version: 1\ncreator: callgrind-3.19.0\npart: " +
         std::to_string(part) +
         "\n\ndesc: Timerange: Basic block 0 - 9\n"
         "desc: Trigger: Client Request: " +
         label + "\n\npositions: line\nevents: Ir\nsummary: " +
         std::to_string(100 + part) + "\n\ntotals: 1\n";
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A read that blocks (a FIFO) must fail the test, not hang it.
void HungUp(int) {
  constexpr char kMessage[] =
      "callgrind_files_test: TakeDumps blocked for 60 s (a FIFO?)\n";
  (void)!::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  ::_exit(1);
}

class DumpDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakePrivateDir(::testing::TempDir() + "pmubench_dumps_");
    ASSERT_FALSE(dir_.empty());
    base_ = dir_ + "/cg.out";
    std::signal(SIGALRM, HungUp);
    ::alarm(60);
  }
  void TearDown() override {
    ::alarm(0);
    RemoveDirAndFiles(dir_);
  }

  std::string dir_;
  std::string base_;
};

TEST_F(DumpDirectoryTest, TakesOnlyItsOwnRegularDumpsOfItsLabel) {
  const std::string label = "pmubench-7-3";
  WriteText(base_ + ".1", DumpText(label, 1));
  WriteText(base_ + ".2-02", DumpText(label, 2));  // --separate-threads=yes
  // Not ours to take: another label, the end-of-run dump's name, a name
  // callgrind does not give a part, a FIFO, links to a device and to a
  // file elsewhere, a second name of a file elsewhere.
  WriteText(base_ + ".3", DumpText("pmubench-7-30", 3));
  WriteText(base_, DumpText(label, 4));
  WriteText(base_ + ".x1", DumpText(label, 5));
  ASSERT_EQ(::mkfifo((base_ + ".4").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((base_ + ".zz").c_str(), 0600), 0);
  ASSERT_EQ(::symlink("/dev/zero", (base_ + ".5").c_str()), 0);
  const std::string elsewhere =
      MakePrivateDir(::testing::TempDir() + "pmubench_victim_");
  ASSERT_FALSE(elsewhere.empty());
  const std::string victim = elsewhere + "/v";
  WriteText(victim, DumpText(label, 6));
  ASSERT_EQ(::symlink(victim.c_str(), (base_ + ".6").c_str()), 0);
  ASSERT_EQ(::link(victim.c_str(), (base_ + ".7").c_str()), 0);

  absl::StatusOr<std::vector<CallgrindDump>> dumps =
      Callgrind(base_).TakeDumps(label);
  ASSERT_TRUE(dumps.ok()) << dumps.status();
  ASSERT_EQ(dumps->size(), 2u);
  EXPECT_EQ((*dumps)[0].Total("Ir"), 101);
  EXPECT_EQ((*dumps)[1].Total("Ir"), 102);
  EXPECT_THAT(
      ListDir(dir_),
      UnorderedElementsAre("cg.out", "cg.out.3", "cg.out.x1", "cg.out.4",
                           "cg.out.zz", "cg.out.5", "cg.out.6", "cg.out.7"))
      << "only the two dumps it read are deleted";
  EXPECT_EQ(ReadFile(victim), DumpText(label, 6));
  unlink(victim.c_str());
  rmdir(elsewhere.c_str());
}

TEST_F(DumpDirectoryTest, ADumpBeyondTheBoundIsAnErrorAndStays) {
  const std::string label = "pmubench-7-4";
  const std::string path = base_ + ".1";
  WriteText(path, DumpText(label, 1));
  // 300 MiB of holes: as a dump growing without end would be.
  ASSERT_EQ(::truncate(path.c_str(), off_t{300} << 20), 0);
  absl::StatusOr<std::vector<CallgrindDump>> dumps =
      Callgrind(base_).TakeDumps(label);
  ASSERT_FALSE(dumps.ok());
  EXPECT_THAT(dumps.status().message(), HasSubstr(path));
  EXPECT_THAT(dumps.status().message(), HasSubstr("more than pmubench reads"));
  EXPECT_THAT(ListDir(dir_), UnorderedElementsAre("cg.out.1"));
}

TEST_F(DumpDirectoryTest, OnlyADirectoryOthersCannotWriteIsAccepted) {
  const std::string base = dir_ + "/callgrind.out.123";
  EXPECT_TRUE(CheckDumpDirectory(base).ok()) << CheckDumpDirectory(base);
  ASSERT_EQ(::chmod(dir_.c_str(), 0770), 0);
  EXPECT_THAT(CheckDumpDirectory(base).message(),
              HasSubstr("can be written by its group (mode 0770)"));
  ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);
  const absl::Status shared = CheckDumpDirectory(base);
  EXPECT_THAT(shared.message(),
              HasSubstr("callgrind writes its dumps to " + dir_));
  EXPECT_THAT(shared.message(), HasSubstr("every user (mode 1777)"));
  EXPECT_THAT(shared.message(), HasSubstr("--pmubench_simulate"));
  ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
  // Another user's directory (root's / for anyone else).
  const std::string other = ::geteuid() == 0 ? dir_ : "/";
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(dir_.c_str(), 65534, 65534), 0);
  }
  EXPECT_THAT(CheckDumpDirectory(other + "/callgrind.out.1").message(),
              HasSubstr("not to you"));
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(dir_.c_str(), 0, 0), 0);
  }
}

// valgrind's verdict on --D1/--LL=`geometry` (exit 0: it ran /bin/true).
bool ValgrindAccepts(const std::string& flag, const std::string& geometry) {
  const std::string command =
      "valgrind -q --tool=callgrind --cache-sim=yes --" + flag + "=" +
      geometry + " --callgrind-out-file=/dev/null /bin/true >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

TEST(CacheGeometryTest, RefusedWhereValgrindRefusesIt) {
  if (std::system("valgrind --tool=callgrind --version >/dev/null 2>&1") != 0 ||
      !ValgrindAccepts("D1", kDefaultD1)) {
    GTEST_SKIP() << "valgrind is not installed or cannot run here "
                    "(apt-get install valgrind)";
  }
  // Sets and lines powers of two, size above the line, the line at least
  // valgrind's minimum (16) and the machine's largest register (32 with
  // AVX), every number an int.
  for (const char* geometry :
       {"32768,8,64", "8192,1,64", "96,3,32", "65536,1024,64", "48,3,16",
        "64,4,16", "4096,1,4096", "96,1,48", "98304,8,64", "1000,8,64",
        "64,1,32", "32,1,32", "4294967296,8,64"}) {
    for (const char* flag : {"D1", "LL"}) {
      const bool valgrind = ValgrindAccepts(flag, geometry);
      const absl::Status ours = CheckCacheGeometry(
          std::string("pmubench_simulate_") + (flag[0] == 'D' ? "d1" : "ll"),
          geometry);
      EXPECT_EQ(ours.ok(), valgrind)
          << "--" << flag << "=" << geometry << ": valgrind "
          << (valgrind ? "accepts" : "refuses") << " it; pmubench says "
          << ours;
    }
  }
}

}  // namespace
}  // namespace pmubench::internal
