// The callgrind backend where others can reach its files, under real
// valgrind: a binary started by hand in a directory every user can write
// (cd /tmp), with FIFOs, links and dumps planted there by a real second
// user (uid 65534, through setpriv(1)); a run killed with SIGKILL and what
// the next run does with what it left; a full $TMPDIR; cache geometries
// valgrind would refuse, and one it spells differently. Planting as
// another user and mounting a small file system need root: those tests
// skip with the reason otherwise. A run that hangs is killed by timeout(1)
// and fails its test.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"

namespace {

using ::pmubench::testing::CasesBinary;
using ::pmubench::testing::JsonRunField;
using ::pmubench::testing::ListDir;
using ::pmubench::testing::MakePrivateDir;
using ::pmubench::testing::MountTinyTmpfs;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::Result;
using ::pmubench::testing::RunShell;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr uid_t kOtherUser = 65534;  // nobody
// timeout(1)'s status when it had to kill the run.
constexpr int kKilledByTimeout = 128 + SIGKILL;

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

// The owner of `path` itself (a link is not followed), or -1.
int OwnerOf(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_uid) : -1;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Removes `dir` and what is in it, whoever owns it (the tests run as root).
void RemoveTree(const std::string& dir) {
  if (!dir.empty()) (void)!std::system(("rm -rf '" + dir + "'").c_str());
}

class SharedDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (BuiltWithAsan()) {
      GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build; the "
                      "CMake build runs these tests";
    }
#if !defined(__x86_64__) && !defined(__aarch64__)
    GTEST_SKIP() << "the callgrind backend supports x86-64 and arm64 only";
#endif
    if (std::system("valgrind --tool=callgrind --version >/dev/null 2>&1") !=
        0) {
      GTEST_SKIP() << "valgrind is not installed (apt-get install valgrind)";
    }
    ASSERT_FALSE(CasesBinary().empty());
    aux_ = MakePrivateDir("/tmp/pmubench_shared_aux_");
    ASSERT_FALSE(aux_.empty());
  }
  void TearDown() override {
    RemoveTree(aux_);
    RemoveTree(dir_);
  }

  // Why files cannot be planted as another user here, or "".
  static std::string WhyNoSecondUser() {
    if (::geteuid() != 0) {
      return "planting files as a second user needs root (setpriv --reuid)";
    }
    if (std::system("setpriv --version >/dev/null 2>&1") != 0) {
      return "setpriv (util-linux) is not installed";
    }
    return "";
  }

  // Writes aux/plant.sh: run as the other user with DIR and the pid the
  // run will have, it plants callgrind.out.PID.* files there. `victims`:
  // links at the names of the first three dumps to a root-only file.
  void WritePlanter(bool victims) {
    WriteText(aux_ + "/victim", "root only\n");
    ASSERT_EQ(::chmod((aux_ + "/victim").c_str(), 0600), 0);
    WriteText(aux_ + "/probe",
              "creator: callgrind-3.19.0\npart: 1\n\n"
              "desc: Trigger: Client Request: LABEL\n\n"
              "events: Ir\nsummary: 7\n");
    ASSERT_EQ(::chmod(aux_.c_str(), 0755), 0);
    std::string script =
        "set -e; cd \"$1\"; P=$2\n"
        "mkfifo callgrind.out.$P.zz\n"
        "ln -s /dev/zero callgrind.out.$P.zy\n"
        // A dump labelled as the probe of this run, and as an older one's.
        "sed \"s/LABEL/pmubench-$P-probe/\" " +
        aux_ +
        "/probe "
        "> callgrind.out.$P.999\n"
        "sed \"s/LABEL/pmubench-probe/\" " +
        aux_ +
        "/probe "
        "> callgrind.out.$P.998\n";
    if (victims) {
      script += "for n in 1 2 3; do ln -s " + aux_ +
                "/victim callgrind.out.$P.$n; done\n";
    }
    WriteText(aux_ + "/plant.sh", script);
  }

  // Plants as the other user, then runs the cases binary by hand under
  // callgrind in `dir_` with the pid it planted for; killed after 90 s.
  Result PlantAndRunByHand(const std::string& then, const std::string& args) {
    const std::string binary = CasesBinary();
    return RunShell(
        "cd '" + dir_ +
            "' && timeout -s KILL 90 sh -c '"
            "setpriv --reuid=" +
            std::to_string(kOtherUser) +
            " --regid=" + std::to_string(kOtherUser) + " --clear-groups sh " +
            aux_ + "/plant.sh " + dir_ + " $$ && " + then +
            // valgrind's own FIFOs in our directory, should it be killed.
            " TMPDIR=" + aux_ +
            " exec valgrind -q --tool=callgrind --collect-atstart=no " +
            binary + " " + args + "'",
        aux_ + "/console");
  }

  // The names the other user planted in `dir_`, each still theirs.
  std::vector<std::string> Planted() {
    std::vector<std::string> names;
    for (const std::string& name : ListDir(dir_)) {
      if (OwnerOf(dir_ + "/" + name) == static_cast<int>(kOtherUser)) {
        names.push_back(name.substr(name.rfind('.') + 1));
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string aux_;  // scripts, the victim, console files, JSON
  std::string dir_;  // where callgrind dumps
};

TEST_F(SharedDirTest, ADirectoryOthersCanWriteIsRefusedBeforeTheFirstDump) {
  if (const std::string why = WhyNoSecondUser(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  dir_ = MakePrivateDir("/tmp/pmubench_shared_");
  ASSERT_FALSE(dir_.empty());
  ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);  // as /tmp
  WritePlanter(/*victims=*/true);
  const Result r = PlantAndRunByHand("", "--benchmark_filter=BM_SimNops");
  ASSERT_NE(r.exit_code, kKilledByTimeout) << "the run hung:\n" << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("callgrind writes its dumps to " + dir_));
  EXPECT_THAT(r.err, HasSubstr("can be written by every user"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_SimNops")));
  EXPECT_EQ(ReadFile(aux_ + "/victim"), "root only\n")
      << "valgrind wrote a dump through a planted link";
  EXPECT_THAT(Planted(),
              ::testing::ElementsAre("1", "2", "3", "998", "999", "zy", "zz"))
      << "nothing of the other user's is deleted";
}

TEST_F(SharedDirTest, AnotherUsersFilesInTheDumpDirectoryAreLeftAlone) {
  if (const std::string why = WhyNoSecondUser(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  // Planted while the directory was open to all, then closed (0755): the
  // run starts, and must not block on the FIFO, read /dev/zero, count or
  // delete the other user's dumps.
  dir_ = MakePrivateDir("/tmp/pmubench_shared_");
  ASSERT_FALSE(dir_.empty());
  ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);
  WritePlanter(/*victims=*/false);
  const std::string out = aux_ + "/out.json";
  const Result r =
      PlantAndRunByHand("chmod 0755 " + dir_ + " &&",
                        "--benchmark_filter=BM_SimNops --benchmark_out=" + out +
                            " --benchmark_out_format=json");
  ASSERT_NE(r.exit_code, kKilledByTimeout) << "the run hung:\n" << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      JsonRunField(ReadFile(out), "BM_SimNops", "callgrind/instructions/"),
      102);
  EXPECT_THAT(Planted(), ::testing::ElementsAre("998", "999", "zy", "zz"));
}

// The entries of `dir` whose names start with `prefix`.
std::vector<std::string> Named(const std::string& dir,
                               const std::string& prefix) {
  std::vector<std::string> names;
  for (const std::string& name : ListDir(dir)) {
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

// Starts `command` through sh in a process group of its own.
pid_t StartGroup(const std::string& command) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    ::_exit(127);
  }
  return child;
}

// A pid that was in use and is not now.
pid_t GonePid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

struct KillState {
  bool started = false;  // callgrind's output file appeared
  bool running = false;  // the run was still in its directory when stopped
};

// Kills the run's process group (as a CI timeout kills a job) as soon as
// callgrind runs: the moment its output file exists in the run's private
// directory under tmp. A fixed wait after that (it was a second) outlasts
// the whole case on a quiet machine, which then cleans up and leaves
// nothing to check; the stop freezes the state the kill must find.
KillState KillWhenCallgrindRuns(const std::string& tmp, pid_t group) {
  KillState state;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!state.started && std::chrono::steady_clock::now() < deadline) {
    for (const std::string& d : Named(tmp, "pmubench-callgrind.")) {
      state.started =
          state.started || !Named(tmp + "/" + d, "callgrind.out").empty();
    }
    if (!state.started) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ::kill(-group, SIGSTOP);
  state.running = Named(tmp, "pmubench-callgrind.").size() == 1;
  ::kill(-group, SIGKILL);
  ::waitpid(group, nullptr, 0);
  return state;
}

TEST_F(SharedDirTest, AKilledRunLeavesNoFifoAndTheNextRunRemovesItsFiles) {
  const std::string tmp = aux_;  // $TMPDIR of the runs
  const std::string binary = CasesBinary();
  const std::string run = "cd '" + tmp + "' && TMPDIR='" + tmp + "' exec " +
                          binary + " --pmubench_simulate ";
  const pid_t group = StartGroup(run +
                                 "--benchmark_filter=BM_SimChase "
                                 ">/dev/null 2>&1");
  ASSERT_GT(group, 0);
  const KillState state = KillWhenCallgrindRuns(tmp, group);
  ASSERT_TRUE(state.started) << "callgrind did not start within 60 s";
  ASSERT_TRUE(state.running) << "the run ended before it was stopped";
  const std::vector<std::string> left = Named(tmp, "pmubench-callgrind.");
  ASSERT_EQ(left.size(), 1u) << "SIGKILL leaves the private directory";
  EXPECT_THAT(Named(tmp, "vgdb-pipe"), ::testing::IsEmpty())
      << "valgrind's gdbserver FIFOs outlive a killed run";

  // Not provably stale, so kept: a directory of a live process, one
  // locked by a process (as in another pid namespace), another user's.
  const pid_t gone = GonePid();
  const std::string live =
      tmp + "/pmubench-callgrind." + std::to_string(::getpid()) + ".AAAAAA";
  const std::string locked =
      tmp + "/pmubench-callgrind." + std::to_string(gone) + ".BBBBBB";
  const std::string others =
      tmp + "/pmubench-callgrind." + std::to_string(gone) + ".CCCCCC";
  for (const std::string& d : {live, locked, others}) {
    ASSERT_EQ(::mkdir(d.c_str(), 0700), 0) << d;
  }
  const int lock = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  const bool root = ::geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown(others.c_str(), kOtherUser, kOtherUser), 0);
  }
  const Result r =
      RunShell(run + "--benchmark_filter=BM_SimNops$", aux_ + "/console");
  ::close(lock);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> kept = Named(tmp, "pmubench-callgrind.");
  std::sort(kept.begin(), kept.end());
  std::vector<std::string> expected = {live.substr(tmp.size() + 1),
                                       locked.substr(tmp.size() + 1)};
  if (root) expected.push_back(others.substr(tmp.size() + 1));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(kept, expected) << "the killed run's directory is removed, "
                               "nothing else";
  if (!root) ::rmdir(others.c_str());
  EXPECT_THAT(Named(tmp, "vgdb-pipe"), ::testing::IsEmpty());
}

TEST_F(SharedDirTest, AFullTmpdirIsNamedBeforeValgrindStarts) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "mounting a small tmpfs as a full $TMPDIR needs root";
  }
  const std::string tmp = MakePrivateDir("/tmp/pmubench_full_");
  ASSERT_FALSE(tmp.empty());
  if (const std::string why = MountTinyTmpfs(tmp); !why.empty()) {
    GTEST_SKIP() << why;
  }
  WriteText(tmp + "/filler", std::string(64 << 10, 'x'));  // fills it
  const Result r = RunShell("TMPDIR='" + tmp + "' '" + CasesBinary() +
                                "' --pmubench_simulate "
                                "--benchmark_filter=BM_SimNops",
                            aux_ + "/console");
  ::umount2(tmp.c_str(), MNT_DETACH);
  ::rmdir(tmp.c_str());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("the file system of $TMPDIR (" + tmp + ") is full"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_SimNops")));
}

TEST_F(SharedDirTest,
       TheGeometrySimulatedIsRecordedAndOneValgrindRefusesIsNot) {
  const std::string out = aux_ + "/out.json";
  auto run = [&](const std::string& d1) {
    return RunShell(
        "cd '" + aux_ + "' && TMPDIR='" + aux_ + "' '" + CasesBinary() +
            "' --pmubench_simulate=cache "
            "--pmubench_simulate_iterations=1 "
            "--pmubench_simulate_d1=" +
            d1 + " --benchmark_filter=BM_SimNops$ --benchmark_out=" + out +
            " --benchmark_out_format=json",
        aux_ + "/console");
  };
  // Callgrind writes one way as "direct-mapped".
  const Result r = run("8192,1,64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFile(out),
              HasSubstr("\"pmubench_cache_geometry\": \"I1=32768,8,64 "
                        "D1=8192,1,64 LL=8388608,16,64\""));
  // A line as large as the cache: valgrind's "Cache size <= line size".
  const Result refused = run("4096,1,4096");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err,
              HasSubstr("--pmubench_simulate_d1=4096,1,4096: give SIZE"));
  EXPECT_THAT(refused.err, HasSubstr("SIZE larger than LINE_SIZE"));
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  // The runs start in other directories: the binary by its absolute path.
  char resolved[PATH_MAX];
  if (::realpath(CasesBinary().c_str(), resolved) != nullptr) {
    CasesBinary() = resolved;
  }
  return RUN_ALL_TESTS();
}
