// End to end, the --benchmark_out file: whole or absent whatever stops the
// run (signals, a full disk), its path checked before any case runs, and
// strict JSON whatever a case's name or label holds.
#include "tests/runner/e2e_fixture.h"

namespace pmubench::testing {
namespace {

TEST_F(E2eTest, UnwritableOutputExitsTwo) {
  const Result r =
      RunCases("--benchmark_out=" + dir_ + "/missing_dir/run.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("missing_dir/run.json"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchPages")));
}

// --- The --benchmark_out file: whole or nothing; flags checked first. ---

// Starts the cases binary with `args` (stdout and stderr to /dev/null, no
// core dump) and returns its pid.
pid_t StartCases(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  const int null_fd = open("/dev/null", O_WRONLY);
  dup2(null_fd, STDOUT_FILENO);
  dup2(null_fd, STDERR_FILENO);
  std::vector<char*> argv = {CasesBinary().data()};
  for (const std::string& arg : args)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

// Waits until `path` exists or `pid` has exited; true if it exists.
bool WaitForFileOrExit(const std::string& path, pid_t pid) {
  while (access(path.c_str(), F_OK) != 0) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    usleep(10 * 1000);
  }
  return true;
}

// Kills a run in the middle of a benchmark with each signal that ends a
// process, the output named by the flag or by BENCHMARK_OUT (Google
// Benchmark's default for it): nothing may be left in the directory.
TEST_F(E2eTest, KilledRunLeavesNoOutputFile) {
  const std::string running =
      ::testing::TempDir() + "pmubench_e2e_running_" + std::to_string(getpid());
  const std::string out = dir_ + "/killed.json";
  setenv("PMUBENCH_TEST_RUNNING_FILE", running.c_str(), 1);
  for (const int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGKILL}) {
    for (const bool by_env : {false, true}) {
      SCOPED_TRACE(std::string(strsignal(sig)) +
                   (by_env ? " BENCHMARK_OUT" : " --benchmark_out"));
      unlink(running.c_str());
      std::vector<std::string> args = {
          "--counters=task-clock",
          "--benchmark_filter=BM_TouchPages|BM_UntilKilled"};
      if (by_env) {
        setenv("BENCHMARK_OUT", out.c_str(), 1);
      } else {
        args.push_back("--benchmark_out=" + out);
      }
      const pid_t pid = StartCases(args);
      unsetenv("BENCHMARK_OUT");
      ASSERT_TRUE(WaitForFileOrExit(running, pid))
          << "the run ended before BM_UntilKilled started";
      kill(pid, sig);
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
      EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty());
    }
  }
  unsetenv("PMUBENCH_TEST_RUNNING_FILE");
  unlink(running.c_str());
}

TEST_F(E2eTest, ListTestsWritesNoOutputFile) {
  const Result r =
      RunCases("--benchmark_list_tests --benchmark_out=" + dir_ + "/list.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("BM_Plain"));
  EXPECT_THAT(r.err, HasSubstr("list.json was not written"));
  EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty());
}

TEST_F(E2eTest, OutputPathThatIsADirectoryExitsTwoBeforeRunning) {
  const Result r = RunCases("--benchmark_out=" + dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is a directory"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_")));
}

// Whole or not at all on a full disk: a file system smaller than the JSON.
TEST_F(E2eTest, FullDiskLeavesNoOutputFileAndFails) {
  const std::string small = dir_ + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  if (const std::string why = MountTinyTmpfs(small); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const Result r = RunCases(
      "--counters=task-clock --benchmark_filter=BM_TouchPages "
      "--benchmark_repetitions=12 --benchmark_out=" +
      small + "/full.json");
  const std::vector<std::string> left = ListDir(small);
  umount(small.c_str());
  rmdir(small.c_str());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("No space left on device"));
  EXPECT_THAT(r.err, HasSubstr("full.json"));
  EXPECT_THAT(left, ::testing::IsEmpty());
}

// `bazel run` starts the binary in its runfiles tree and says where it was
// run from in BUILD_WORKING_DIRECTORY.
TEST_F(E2eTest, RelativeOutputIsInBuildWorkingDirectory) {
  setenv("BUILD_WORKING_DIRECTORY", dir_.c_str(), 1);
  const Result r =
      RunCases("--benchmark_filter=BM_Plain --benchmark_out=relative_out.json");
  unsetenv("BUILD_WORKING_DIRECTORY");
  const bool in_cwd = access("relative_out.json", F_OK) == 0;
  unlink("relative_out.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ListDir(dir_), ::testing::ElementsAre("relative_out.json"));
  EXPECT_FALSE(in_cwd);
}

// True when /usr/bin/python3's json module reads `path` with no NaN or
// Infinity constant (parse_constant sees only those).
bool PythonReadsStrictJson(const std::string& path) {
  const std::string command =
      "/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]), "
      "parse_constant=lambda c: sys.exit(\"non-finite \" + c))' '" +
      path + "'";
  return std::system(command.c_str()) == 0;
}

TEST_F(E2eTest, FileAndStdoutJsonAreStrictWithAZeroCounter) {
  if (access("/usr/bin/python3", X_OK) != 0) {
    GTEST_SKIP() << "/usr/bin/python3 is needed as the strict JSON parser";
  }
  const std::string file = dir_ + "/strict.json";
  const std::string args =
      "--benchmark_filter=BM_ZeroCounter --benchmark_repetitions=3 ";
  const Result to_file = RunCases(args + "--benchmark_out=" + file);
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  const Result to_stdout = RunCases(args + "--benchmark_format=json");
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  const std::string stdout_copy = dir_ + "/stdout.json";
  std::ofstream(stdout_copy) << to_stdout.out;

  for (const std::string& path : {file, stdout_copy}) {
    SCOPED_TRACE(path);
    EXPECT_TRUE(PythonReadsStrictJson(path));
    const std::string json = ReadFile(path);
    EXPECT_EQ(JsonRunField(json, "BM_ZeroCounter/iterations:100_mean", "never"),
              0.0);
    // 0/0: no spread to report, so the cv row leaves the counter out.
    EXPECT_TRUE(std::isnan(
        JsonRunField(json, "BM_ZeroCounter/iterations:100_cv", "never")));
    EXPECT_GE(
        JsonRunField(json, "BM_ZeroCounter/iterations:100_cv", "real_time"),
        0.0);
  }
}

// Reads each JSON file named on its command line with Python's json module
// (strict: a raw control character or bytes that are not UTF-8 fail) and
// checks the names and labels of e2e_cases.cc's PMUBENCH_TEST_HOSTILE_NAMES
// cases: every byte 1..255 (a 0 ends the C string) decoded as UTF-8 with
// errors="replace", and the printable name unchanged.
constexpr char kHostileNamesCheck[] = R"py(
import json, sys
every = bytes(range(1, 256)).decode("utf-8", errors="replace")
printable = "".join(map(chr, range(0x20, 0x7f))) + "\u00e9\u540d\U0001f600"
want = {"BM_AllBytes_" + every + "/iterations:8": every,
        "BM_Printable_" + printable + "/iterations:8": every}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f, parse_constant=lambda c: sys.exit("non-finite " + c))
    got = {b["name"]: b.get("label") for b in doc["benchmarks"]}
    if got != want:
        sys.exit(path + ": got " + ascii(got))
    for b in doc["benchmarks"]:
        if b["name"] != b["run_name"]:
            sys.exit(path + ": run_name " + ascii(b["run_name"]))
)py";

TEST_F(E2eTest, EveryByteInANameOrLabelGivesStrictJson) {
  if (access("/usr/bin/python3", X_OK) != 0) {
    GTEST_SKIP() << "/usr/bin/python3 is needed as the strict JSON parser";
  }
  const std::string file = dir_ + "/names.json";
  const std::string args =
      "--counters=task-clock --benchmark_filter='^BM_(AllBytes|Printable)_' ";
  setenv("PMUBENCH_TEST_HOSTILE_NAMES", "1", 1);
  const Result to_file = RunCases(args + "--benchmark_out=" + file);
  const Result to_stdout = RunCases(args + "--benchmark_format=json");
  unsetenv("PMUBENCH_TEST_HOSTILE_NAMES");
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  const std::string stdout_copy = dir_ + "/stdout.json";
  std::ofstream(stdout_copy) << to_stdout.out;
  const std::string script = dir_ + "/check.py";
  std::ofstream(script) << kHostileNamesCheck;
  const Result check = RunShell(
      "/usr/bin/python3 '" + script + "' '" + file + "' '" + stdout_copy + "'",
      dir_ + "/check.out");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace pmubench::testing
