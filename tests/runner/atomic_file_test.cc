// AtomicFile: the file appears whole under its name or not at all, by the
// O_TMPFILE route and by the named-temporary fallback.
#include "framework/runner/output/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/text_of_runs.h"

namespace pmubench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAreArray;
using Method = AtomicFile::Method;
using ::pmubench::testing::ListDir;
using ::pmubench::testing::MakePrivateDir;
using ::pmubench::testing::MountTinyTmpfs;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::RemoveDirAndFiles;

class AtomicFileTest : public ::testing::TestWithParam<Method> {
 protected:
  void SetUp() override {
    dir_ = MakePrivateDir(::testing::TempDir() + "pmubench_atomic_");
    ASSERT_FALSE(dir_.empty()) << "mkdtemp in " << ::testing::TempDir();
  }
  void TearDown() override { RemoveDirAndFiles(dir_); }
  std::string dir_;
};

TEST_P(AtomicFileTest, NothingIsVisibleUntilCommit) {
  const std::string path = dir_ + "/out.json";
  {
    AtomicFile file(GetParam());
    ASSERT_TRUE(file.Open(path).ok());
    EXPECT_THAT(ListDir(dir_), IsEmpty());
    ASSERT_TRUE(file.Commit("{\"whole\": true}\n").ok());
    EXPECT_THAT(ListDir(dir_), ElementsAre("out.json"));
  }
  EXPECT_EQ(ReadFile(path), "{\"whole\": true}\n");
  {
    AtomicFile abandoned(GetParam());
    ASSERT_TRUE(abandoned.Open(dir_ + "/never.json").ok());
  }
  EXPECT_THAT(ListDir(dir_), ElementsAre("out.json"));
}

TEST_P(AtomicFileTest, ReplacesAnExistingFileLeavingNoTemporary) {
  const std::string path = dir_ + "/out.json";
  std::ofstream(path) << "old";
  AtomicFile file(GetParam());
  ASSERT_TRUE(file.Open(path).ok());
  EXPECT_EQ(ReadFile(path), "old");
  ASSERT_TRUE(file.Commit("new").ok());
  EXPECT_EQ(ReadFile(path), "new");
  EXPECT_THAT(ListDir(dir_), ElementsAre("out.json"));
}

TEST_P(AtomicFileTest, RefusesADirectoryOrAMissingDirectory) {
  AtomicFile directory(GetParam());
  absl::Status s = directory.Open(dir_);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("is a directory"));

  AtomicFile missing(GetParam());
  s = missing.Open(dir_ + "/no_such_dir/out.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("no_such_dir"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("does not exist"));
}

// A 4 KiB tmpfs cannot hold 64 KiB: the write fails, and neither the file
// nor a temporary is left.
TEST_P(AtomicFileTest, FullFileSystemFailsAndLeavesNothing) {
  const std::string small = dir_ + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  if (const std::string why = MountTinyTmpfs(small); !why.empty()) {
    GTEST_SKIP() << why;
  }
  absl::Status s;
  {
    AtomicFile file(GetParam());
    s = file.Open(small + "/out.json");
    if (s.ok()) s = file.Commit(std::string(64 * 1024, 'x'));
  }
  const std::vector<std::string> left = ListDir(small);
  umount(small.c_str());
  rmdir(small.c_str());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("No space left on device"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("out.json"));
  EXPECT_THAT(left, IsEmpty());
}

// A process id that is certainly gone: a child that has exited and been
// waited for.
pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

// A writer killed in the middle of its write on a file system without
// O_TMPFILE (SIGXFSZ at the file size limit: a signal Commit cannot block,
// as SIGKILL) leaves its named temporary; the next write to the directory,
// by either method, removes it.
TEST_P(AtomicFileTest, NextWriteRemovesTheTemporaryOfAKilledWriter) {
  const std::string path = dir_ + "/out.json";
  const pid_t writer = fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    const rlimit size = {4096, 4096}, no_core = {0, 0};
    setrlimit(RLIMIT_FSIZE, &size);
    setrlimit(RLIMIT_CORE, &no_core);
    signal(SIGXFSZ, SIG_DFL);
    AtomicFile file(Method::kNamedTemporary);
    if (file.Open(path).ok()) (void)file.Commit(std::string(64 * 1024, 'x'));
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << status;
  ASSERT_EQ(ListDir(dir_).size(), 1u);  // the killed writer's temporary

  AtomicFile next(GetParam());
  ASSERT_TRUE(next.Open(dir_ + "/next.json").ok());
  ASSERT_TRUE(next.Commit("next").ok());
  EXPECT_THAT(ListDir(dir_), ElementsAre("next.json"));
}

// Only what is provably a killed writer's temporary goes: not one whose
// process lives, whose lock a live process holds, of another name pattern,
// of another user, or that is no regular file.
TEST_P(AtomicFileTest, KeepsTemporariesNotProvablyStale) {
  const pid_t dead = DeadPid();
  const std::string stale = "stale.json.pmubench-tmp-" + std::to_string(dead);
  const std::string kept[] = {
      "alive.json.pmubench-tmp-1",  // init: always alive
      "locked.json.pmubench-tmp-" + std::to_string(DeadPid()),
      "user.json.tmp." + std::to_string(dead),
      "bad.json.pmubench-tmp-12x",
      "link.json.pmubench-tmp-" + std::to_string(dead),
      "dir.json.pmubench-tmp-" + std::to_string(dead),
  };
  for (const std::string& name : {stale, kept[0], kept[1], kept[2], kept[3]}) {
    std::ofstream(dir_ + "/" + name) << "x";
  }
  ASSERT_EQ(symlink("stale-target", (dir_ + "/" + kept[4]).c_str()), 0);
  ASSERT_EQ(mkdir((dir_ + "/" + kept[5]).c_str(), 0755), 0);
  std::vector<std::string> expected(std::begin(kept), std::end(kept));
  if (geteuid() == 0) {
    const std::string other = "other.json.pmubench-tmp-" + std::to_string(dead);
    std::ofstream(dir_ + "/" + other) << "x";
    ASSERT_EQ(chown((dir_ + "/" + other).c_str(), 65534, 65534), 0);
    expected.push_back(other);
  }
  // A live process holds the lock of "locked" (a writer in another PID
  // namespace, whose pid means nothing here).
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork();
  if (holder == 0) {
    const int fd = open((dir_ + "/" + kept[1]).c_str(), O_RDONLY);
    flock(fd, LOCK_EX);
    close(ready[0]);
    close(ready[1]);  // locked
    pause();
    _exit(0);
  }
  close(ready[1]);
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 0);
  close(ready[0]);

  AtomicFile file(GetParam());
  ASSERT_TRUE(file.Open(dir_ + "/out.json").ok());
  ASSERT_TRUE(file.Commit("new").ok());
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  expected.push_back("out.json");
  EXPECT_THAT(ListDir(dir_), UnorderedElementsAreArray(expected));
  rmdir((dir_ + "/" + kept[5]).c_str());
}

INSTANTIATE_TEST_SUITE_P(BothMethods, AtomicFileTest,
                         ::testing::Values(Method::kUnnamed,
                                           Method::kNamedTemporary),
                         [](const auto& info) {
                           return info.param == Method::kUnnamed
                                      ? "Unnamed"
                                      : "NamedTemporary";
                         });

}  // namespace
}  // namespace pmubench
