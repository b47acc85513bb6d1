// AtomicFile: the file appears whole under its name or not at all, by the
// O_TMPFILE route and by the named-temporary fallback.
#include "framework/runner/atomic_file.h"

#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pmubench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Method = AtomicFile::Method;

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  return names;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class AtomicFileTest : public ::testing::TestWithParam<Method> {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "pmubench_atomic_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& name : ListDir(dir_)) {
      unlink((dir_ + "/" + name).c_str());
    }
    rmdir(dir_.c_str());
  }
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
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=4k") != 0) {
    const int error = errno;
    rmdir(small.c_str());
    GTEST_SKIP() << "cannot mount a small tmpfs (" << strerror(error)
                 << "): needs CAP_SYS_ADMIN";
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
