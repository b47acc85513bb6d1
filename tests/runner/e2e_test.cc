// Command-line behaviour of a binary linked with pmubench_main
// (e2e_cases.cc), run as a subprocess: exit codes, notices, the console, and
// the --benchmark_out JSON file.
//
// The binary's path: cases_binary.h.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runner/cases_binary.h"
#include "tests/runner/text_of_runs.h"
#include "tests/perf/perf_permitted.h"

namespace {

using ::pmubench::testing::CasesBinary;
using ::pmubench::testing::JsonRunField;
using ::pmubench::testing::ListDir;
using ::pmubench::testing::MountTinyTmpfs;
using ::pmubench::testing::ReadFile;
using ::pmubench::testing::Result;
using ::pmubench::testing::RunShell;

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every test here counts real events (or checks what a counting run
    // prints): where this user may not open perf events at all, skip.
    PMUBENCH_SKIP_IF_PERF_NOT_PERMITTED();
    ASSERT_FALSE(CasesBinary().empty())
        << "pass --e2e_cases=PATH to the e2e_cases binary";
    std::string pattern = ::testing::TempDir() + "pmubench_e2e_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& name : ListDir(dir_)) {
      unlink((dir_ + "/" + name).c_str());
    }
    rmdir(dir_.c_str());
  }

  // Runs the cases binary with `args` (shell words).
  Result RunCases(const std::string& args) {
    return RunShell("'" + CasesBinary() + "' " + args,
                    dir_ + "/../pmubench_e2e_stdout_" +
                        std::to_string(getpid()));
  }

  std::string dir_;
};

// A core PMU under sysfs: x86 "cpu"/"cpu_core", arm64 "armv8_*"/"armv9_*".
bool HasHardwarePmu() {
  if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
      access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0) {
    return true;
  }
  DIR* dir = opendir("/sys/bus/event_source/devices");
  if (dir == nullptr) return false;
  bool found = false;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    found = found || name.rfind("armv8_", 0) == 0 || name.rfind("armv9_", 0) == 0;
  }
  closedir(dir);
  return found;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

constexpr char kSoftware[] = "task-clock,page-faults,context-switches";

TEST_F(E2eTest, JsonHoldsCountersContextAndFailedCase) {
  const std::string json_path = dir_ + "/run.json";
  const Result r = RunCases(std::string("--counters=") + kSoftware +
                            " --benchmark_out=" + json_path +
                            " --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Written whole, under its name, and no temporary file left beside it.
  EXPECT_THAT(ListDir(dir_), ::testing::ElementsAre("run.json"));
  const std::string json = ReadFile(json_path);
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.substr(json.size() - 4), "]\n}\n");

  const std::string touch = "BM_TouchPages/4/iterations:64";
  EXPECT_EQ(JsonRunField(json, touch, "page-faults"), 4.0);
  EXPECT_GT(JsonRunField(json, touch, "task-clock"), 0.0);
  EXPECT_GE(JsonRunField(json, touch, "context-switches"), 0.0);
  EXPECT_EQ(JsonRunField(json, touch, "pmu_running_fraction"), 1.0);
  EXPECT_EQ(JsonRunField(json, "BM_OwnEvents/iterations:32", "page-faults"),
            2.0);
  // A plain BENCHMARK case reports time only.
  EXPECT_TRUE(std::isnan(
      JsonRunField(json, "BM_Plain/iterations:1000", "page-faults")));
  EXPECT_GT(JsonRunField(json, "BM_Plain/iterations:1000", "real_time"), 0.0);

  // The failed case is reported as failed; the cases after it still ran.
  const size_t failed = json.find("\"name\": \"BM_Fails/iterations:8\"");
  ASSERT_NE(failed, std::string::npos);
  const std::string failed_block =
      json.substr(failed, json.find('}', failed) - failed);
  EXPECT_THAT(failed_block, HasSubstr("\"error_occurred\": true"));
  EXPECT_THAT(failed_block,
              HasSubstr("\"error_message\": \"deliberate failure\""));

  for (const char* key : {"\"pmubench_version\": \"", "\"pmubench_pmus\": \"",
                          "\"pmubench_events\": \"task-clock (pmu=software",
                          "\"pmubench_pinned\": \"true\"",
                          "\"pmubench_exclude_kernel\": \"true\"",
                          "\"pmubench_read_overhead\": \"task-clock="}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
  EXPECT_THAT(json, Not(HasSubstr("pmubench_notice")));
  // Every PMU case's family mapped to its source file; plain BENCHMARK
  // cases are not PMU cases.
  const size_t files = json.find("\"pmubench_case_files\": \"");
  ASSERT_NE(files, std::string::npos);
  const std::string case_files =
      json.substr(files, json.find('\n', files) - files);
  EXPECT_THAT(case_files, HasSubstr("BM_TouchPages=e2e_cases;"));
  EXPECT_THAT(case_files, HasSubstr("BM_OwnEvents=e2e_cases;"));
  EXPECT_THAT(case_files, Not(HasSubstr("BM_Plain")));
}

TEST_F(E2eTest, BadSpecExitsTwoBeforeAnyBenchmarkRuns) {
  const std::string json_path = dir_ + "/run.json";
  const Result r = RunCases(
      "--counters=task-clock,no-such-event "
      "--benchmark_out=" +
      json_path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no-such-event"));
  EXPECT_THAT(r.err, HasSubstr("error:"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchPages")));
  EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty()) << "nothing written";
}

TEST_F(E2eTest, MalformedSpecExitsTwo) {
  const Result r = RunCases("--counters=software/config=/");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("software/config=/"));
}

TEST_F(E2eTest, HardwareCountersWithoutPmuExitTwo) {
  if (HasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a hardware PMU: cycles can be counted";
  }
  const Result r = RunCases("--counters=cycles,instructions");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'cycles' needs a hardware PMU"));
  EXPECT_THAT(r.err, HasSubstr("task-clock"));  // the remedy
}

// Where this user may not open perf events at all (EACCES from
// perf_event_open: perf_event_paranoid 3 on Debian kernels), the default
// events do not stop the run: it goes on without counters and says why,
// with the remedy. An explicit --counters list is an error, exit 2.
TEST_F(E2eTest, NotPermittedRunsWithoutCountersOrFailsForExplicitCounters) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the seccomp filter of e2e_cases is written for x86-64";
#endif
  const std::string json = dir_ + "/denied.json";
  setenv("PMUBENCH_TEST_DENY_PERF_EVENT_OPEN", "1", 1);
  const Result ran = RunCases("--benchmark_filter=BM_TouchPages "
                              "--benchmark_out='" + json + "'");
  const Result explicit_list = RunCases(
      "--counters=page-faults --benchmark_filter=BM_TouchPages");
  unsetenv("PMUBENCH_TEST_DENY_PERF_EVENT_OPEN");

  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("running without counters")) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("perf_event_paranoid")) << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("BM_TouchPages"));
  const std::string written = ReadFile(json);
  EXPECT_THAT(written, HasSubstr("running without counters"));
  EXPECT_TRUE(std::isnan(JsonRunField(written, "BM_TouchPages/4/iterations:64",
                                      "page-faults")))
      << "no counter may be reported when none could be opened";

  EXPECT_EQ(explicit_list.exit_code, 2) << explicit_list.err;
  EXPECT_THAT(explicit_list.err, HasSubstr("perf_event_paranoid"));
}

TEST_F(E2eTest, DefaultFallsBackWithOneNotice) {
  if (HasHardwarePmu()) {
    GTEST_SKIP() << "this machine has a hardware PMU: no fallback";
  }
  const Result r = RunCases("--benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t notices = 0;
  for (size_t at = r.err.find("no hardware PMU"); at != std::string::npos;
       at = r.err.find("no hardware PMU", at + 1)) {
    ++notices;
  }
  EXPECT_EQ(notices, 1u) << r.err;
  EXPECT_THAT(r.out, HasSubstr("page-faults=4"));
  EXPECT_THAT(r.out, HasSubstr("task-clock="));
}

TEST_F(E2eTest, DefaultIsHardwareSetWithPmu) {
  if (!HasHardwarePmu()) {
    GTEST_SKIP() << "no hardware PMU: /sys/bus/event_source/devices/cpu "
                    "missing";
  }
  const Result r = RunCases("--benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("instructions="));
  EXPECT_THAT(r.out, HasSubstr("IPC="));
  EXPECT_THAT(r.err, Not(HasSubstr("no hardware PMU")));
}

TEST_F(E2eTest, CountersNoneReportsTimeOnly) {
  const Result r = RunCases(
      "--counters=none --benchmark_format=json "
      "--benchmark_filter=BM_TouchPages");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"real_time\""));
  EXPECT_THAT(r.out, Not(HasSubstr("\"page-faults\"")));
  EXPECT_THAT(r.out, Not(HasSubstr("pmu_running_fraction")));
}

TEST_F(E2eTest, UnknownFlagExitsTwo) {
  const Result r = RunCases("--countrs=task-clock");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--countrs=task-clock"));
  EXPECT_THAT(r.err, HasSubstr("--counters"));
}

TEST_F(E2eTest, BadFlagValueExitsTwo) {
  const Result r = RunCases("--pmubench_no_rdpmc=maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("pmubench_no_rdpmc"));
}

TEST_F(E2eTest, UnwritableOutputExitsTwo) {
  const Result r =
      RunCases("--benchmark_out=" + dir_ + "/missing_dir/run.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("missing_dir/run.json"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchPages")));
}

TEST_F(E2eTest, NoMatchingBenchmarkWritesNothingAndExitsTwo) {
  const std::string json_path = dir_ + "/run.json";
  const Result r =
      RunCases("--benchmark_filter=NoSuchCase --benchmark_out=" + json_path +
               " --benchmark_out_format=json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("run.json was not written"));
  EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty());
}

TEST_F(E2eTest, HelpListsOurFlagsAndGoogleBenchmarks) {
  const Result r = RunCases("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag :
       {"--counters", "--pmubench_no_rdpmc", "--pmubench_list_events",
        "--benchmark_filter", "--benchmark_out"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

TEST_F(E2eTest, ListEventsPrintsKnownNames) {
  const Result r = RunCases("--pmubench_list_events");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("page-faults\n"));
  EXPECT_THAT(r.out, HasSubstr("task-clock\n"));
}

TEST_F(E2eTest, ConsoleExplainsTheDebugLibraryWarning) {
  const std::string json_path = dir_ + "/run.json";
  const Result r =
      RunCases("--benchmark_filter=BM_Plain --benchmark_out=" + json_path +
               " --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err,
              Not(HasSubstr("***WARNING*** Library was built as DEBUG")));
  if (ReadFile(json_path).find("\"library_build_type\": \"debug\"") !=
      std::string::npos) {
    EXPECT_THAT(r.err, HasSubstr("built as DEBUG"));
    EXPECT_THAT(r.err, HasSubstr("per batch, not per iteration"));
  }
  EXPECT_THAT(r.err, HasSubstr("pmubench "));
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
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
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
  const Result r = RunCases("--benchmark_list_tests --benchmark_out=" + dir_ +
                            "/list.json");
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

// Google Benchmark alone exits 0 after its usage for the first three and
// aborts on a negative repetition count.
TEST_F(E2eTest, BadGoogleBenchmarkFlagValuesExitTwo) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--benchmark_format=xml", "console, json, csv"},
      {"--benchmark_out_format=yaml", "console, json, csv"},
      {"--benchmark_time_unit=min", "ns, us, ms, s"},
      {"--benchmark_repetitions=-3", ">= 1"},
      {"--benchmark_repetitions=0", ">= 1"},
      {"--benchmark_min_time=fast", "seconds"},
      {"--benchmark_color=blue", "auto, true, false"},
      {"--benchmark_list_tests=maybe", "true, false"},
      {"--benchmark_context=novalue", "key=value"},
      {"--benchmark_out", "needs a value"},
  };
  for (const auto& [arg, valid] : cases) {
    const Result r = RunCases("--benchmark_filter=BM_Plain " + arg);
    EXPECT_EQ(r.exit_code, 2) << arg;
    EXPECT_THAT(r.err, HasSubstr(arg)) << arg;
    EXPECT_THAT(r.err, HasSubstr(valid)) << arg;
    EXPECT_THAT(r.out, Not(HasSubstr("BM_Plain"))) << arg;
  }
}

TEST_F(E2eTest, BadGoogleBenchmarkEnvironmentDefaultsExitTwo) {
  for (const auto& [var, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"BENCHMARK_FORMAT", "xml"},
           {"BENCHMARK_REPETITIONS", "-3"},
           {"BENCHMARK_TIME_UNIT", "min"}}) {
    setenv(var.c_str(), value.c_str(), 1);
    const Result r = RunCases("--benchmark_filter=BM_Plain");
    unsetenv(var.c_str());
    EXPECT_EQ(r.exit_code, 2) << var;
    EXPECT_THAT(r.err, HasSubstr(var + "=" + value)) << r.err;
  }
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
      "--benchmark_repetitions=12 --benchmark_out=" + small + "/full.json");
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
  const Result r = RunCases(
      "--benchmark_filter=BM_Plain --benchmark_out=relative_out.json");
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
    EXPECT_TRUE(std::isnan(JsonRunField(
        json, "BM_ZeroCounter/iterations:100_cv", "never")));
    EXPECT_GE(JsonRunField(json, "BM_ZeroCounter/iterations:100_cv",
                           "real_time"), 0.0);
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

// --pmubench_profile: BM_TouchPages faults 4 fresh pages per iteration and
// nothing else, so page-faults@1 gives exactly 4 x 64 samples, all in it.
TEST_F(E2eTest, PageFaultProfileIsExactAndAllInTouchPages) {
  const std::string folded = dir_ + "/folded.txt";
  Result r = RunCases(
      "--benchmark_filter=BM_TouchPages --counters=page-faults "
      "--pmubench_profile=page-faults@1 "
      "--pmubench_profile_callchain --pmubench_profile_out='" + folded + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The top function holds all 256 faults: BM_TouchPages, or the
  // FreshPages::TouchNext it calls where that is not inlined. Under ASan its
  // allocator faults a few more pages in other functions.
  EXPECT_THAT(r.out, ContainsRegex("      256  [^\n]*Touch"));
  if (!kAddressSanitizer) {
    EXPECT_THAT(r.out, HasSubstr("profile page-faults@1: 256 samples"));
    EXPECT_THAT(r.out, ContainsRegex("100.00%      256  [^\n]*Touch"));
    // Every fault is the store of FreshPages::TouchNext: one source line.
    EXPECT_THAT(r.out, ContainsRegex("256  [^\n]*Touch[^\n]*  \\(hottest "
                                     "line fresh_pages.h:[0-9]+, 256 "
                                     "samples\\)"));
  }
  EXPECT_THAT(r.out, Not(HasSubstr("LOST")));
  // The measured run is reported as without the flag.
  EXPECT_THAT(r.out, ContainsRegex("page-faults=4([^0-9]|$)"));
  EXPECT_THAT(ReadFile(folded),
              HasSubstr("BM_TouchPages/4/iterations:64;"));
}

// Threads(2): each thread faults 4 x 32 pages; the profile holds both
// threads' faults (the sampler is inherited by the threads Google Benchmark
// starts), not thread 0's alone.
TEST_F(E2eTest, PageFaultProfileCoversEveryThreadOfTheCase) {
  Result r = RunCases(
      "--benchmark_filter=BM_ThreadsTouchPages --counters=page-faults "
      "--pmubench_profile=page-faults@1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("      256  [^\n]*Touch"));
  if (!kAddressSanitizer) {
    EXPECT_THAT(r.out, HasSubstr("profile page-faults@1: 256 samples"));
  }
  EXPECT_THAT(r.out, Not(HasSubstr("LOST")));
}

TEST_F(E2eTest, ProfileIsAFieldOfTheJsonRun) {
  const std::string json = dir_ + "/out.json";
  Result r = RunCases(
      "--benchmark_filter=BM_TouchPages --pmubench_profile=page-faults@1 "
      "--benchmark_out='" + json + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFile(json);
  EXPECT_THAT(text, ContainsRegex("\"pmubench_profile\": \\[\\{\"symbol\": "
                                  "\"[^\"]*Touch[^\"]*\", \"samples\": 256,"));
  EXPECT_THAT(text, HasSubstr("\"pmubench_profile_event\": \"page-faults@1\""));
  // The faulting store's line: an absolute path, or (Bazel) one relative to
  // the workspace.
  EXPECT_THAT(text, ContainsRegex(
                        "\"pmubench_profile_lines\": \\[\\{\"symbol\": "
                        "\"[^\"]*Touch[^\"]*\", \"file\": \"(/[^\"]*/)?"
                        "tests/runner/fresh_pages.h\", \"line\": [0-9]+, "
                        "\"samples\": 256,"));
  if (!kAddressSanitizer) {
    EXPECT_THAT(text, HasSubstr("\"samples\": 256, \"share\": 1.000000}]"));
    EXPECT_THAT(text, HasSubstr("\"pmubench_profile_samples\": 256,"));
  }
  EXPECT_THAT(text, HasSubstr("\"pmubench_profile_lost_samples\": 0,"));
}

// Every output path is checked before the first case runs: a folded-stacks
// file in a directory that does not exist is exit 2 naming it and the fix,
// nothing runs, and --benchmark_out is not written.
TEST_F(E2eTest, BadProfileOutputPathExitsTwoBeforeRunning) {
  const std::string folded = dir_ + "/nonexistent/s.folded";
  const Result r = RunCases(
      "--benchmark_filter=BM_TouchPages --pmubench_profile=page-faults@1 "
      "--pmubench_profile_callchain --pmubench_profile_out=" + folded +
      " --benchmark_out=" + dir_ + "/keep.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--pmubench_profile_out=" + folded));
  EXPECT_THAT(r.err, HasSubstr("does not exist; create it first"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchPages")));
  EXPECT_THAT(ListDir(dir_), ::testing::IsEmpty());
}

// Fills the file system at `dir` (a small tmpfs) up to its last byte.
void FillUp(const std::string& dir) {
  const int fd = open((dir + "/filler").c_str(), O_WRONLY | O_CREAT, 0644);
  const std::string block(512, 'f');
  while (write(fd, block.data(), block.size()) > 0) {
  }
  close(fd);
}

// An output file that cannot be written at the end (its file system is
// full) fails the run with exit 1 naming it, and the other output file is
// written all the same: the folded stacks, then --benchmark_out.
TEST_F(E2eTest, AnOutputThatFailsDoesNotDiscardTheOther) {
  const std::string small = dir_ + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  if (const std::string why = MountTinyTmpfs(small); !why.empty()) {
    GTEST_SKIP() << why;
  }
  FillUp(small);
  const std::string run =
      "--benchmark_filter=BM_TouchPages --counters=page-faults "
      "--pmubench_profile=page-faults@1 --pmubench_profile_callchain ";
  const Result folded_full = RunCases(
      run + "--pmubench_profile_out=" + small + "/s.folded --benchmark_out=" +
      dir_ + "/keep.json");
  const Result json_full = RunCases(
      run + "--pmubench_profile_out=" + dir_ + "/keep.folded " +
      "--benchmark_out=" + small + "/out.json");
  const std::vector<std::string> left = ListDir(small);
  umount(small.c_str());
  rmdir(small.c_str());
  EXPECT_THAT(left, ::testing::ElementsAre("filler"));

  EXPECT_EQ(folded_full.exit_code, 1) << folded_full.err;
  EXPECT_THAT(folded_full.err,
              ContainsRegex("--pmubench_profile_out: [^\n]*s.folded[^\n]*"
                            "No space left on device"));
  const std::string json = ReadFile(dir_ + "/keep.json");
  ASSERT_GE(json.size(), 4u);
  EXPECT_EQ(json.substr(json.size() - 4), "]\n}\n");
  EXPECT_THAT(json, HasSubstr("\"pmubench_profile\""));

  EXPECT_EQ(json_full.exit_code, 1) << json_full.err;
  EXPECT_THAT(json_full.err,
              ContainsRegex("--benchmark_out: [^\n]*out.json[^\n]*"
                            "No space left on device"));
  EXPECT_THAT(ReadFile(dir_ + "/keep.folded"),
              HasSubstr("BM_TouchPages/4/iterations:64;"));
}

// A case renamed with ->Name() to a name with '/' in it counts its own
// events and prints them in their order, and is profiled into the console,
// the JSON and the folded stacks, as any case.
TEST_F(E2eTest, RenamedCaseIsCountedFormattedAndProfiled) {
  const std::string folded = dir_ + "/renamed.folded";
  const std::string json = dir_ + "/renamed.json";
  setenv("PMUBENCH_TEST_RENAMED", "1", 1);
  const Result r = RunCases(
      "--benchmark_filter=BM_Renamed --pmubench_profile=page-faults@1 "
      "--pmubench_profile_callchain --pmubench_profile_out=" + folded +
      " --benchmark_out=" + json);
  unsetenv("PMUBENCH_TEST_RENAMED");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string name = "BM_Renamed/with/slashes/4/iterations:64";
  EXPECT_THAT(r.out, ContainsRegex(name + " [^\n]* task-clock=[^\n ]+ "
                                          "page-faults=4\n"));
  EXPECT_THAT(r.out, ContainsRegex("profile page-faults@1: [0-9]+ samples"));
  EXPECT_THAT(r.out, ContainsRegex("      256  [^\n]*Touch"));
  EXPECT_THAT(ReadFile(folded), HasSubstr(name + ";"));
  EXPECT_THAT(ReadFile(json), HasSubstr("\"pmubench_profile_event\": "
                                        "\"page-faults@1\""));
}

// QEMU's "virt" machine (its device tree says so), where scripts/pmu-vm runs.
bool OnQemuVirt() {
  std::ifstream compatible("/proc/device-tree/compatible");
  std::string text((std::istreambuf_iterator<char>(compatible)),
                   std::istreambuf_iterator<char>());
  return text.find("linux,dummy-virt") != std::string::npos;
}

// "pmubench_profile_slowdown": N of the JSON text; NaN when absent.
double ProfileSlowdownIn(const std::string& json) {
  constexpr std::string_view kField = "\"pmubench_profile_slowdown\": ";
  const size_t at = json.find(kField);
  if (at == std::string::npos) return NAN;
  return std::strtod(json.c_str() + at + kField.size(), nullptr);
}

// BM_ShortSteps, some 20 ns an iteration, sampled every microsecond (the
// kernel's hrtimer clocks take 10 us at the least): the sampling interrupts
// take more time than the case (hundreds of times as long on a VM), and
// both the console and the JSON say so.
TEST_F(E2eTest, ProfileSaysWhenSamplingDominatesTheBatch) {
  if (OnQemuVirt()) {
    GTEST_SKIP() << "under QEMU's -icount the guest's clock counts "
                    "instructions, so a sampling interrupt costs only its "
                    "handler's instructions (1.34x at @1000 in scripts/pmu-vm): "
                    "the slowdown this test needs does not arise there";
  }
  const std::string json = dir_ + "/out.json";
  Result r = RunCases(
      "--benchmark_filter=BM_ShortSteps/ --pmubench_profile=cpu-clock@1000 "
      "--benchmark_out='" + json + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex(
                         "\n  warning: the profiled batch ran [0-9.]+x as "
                         "long as the measured one: sampling interrupts "
                         "dominate; try @[0-9]+\n"));
  const std::string text = ReadFile(json);
  EXPECT_GT(ProfileSlowdownIn(text), 1.5) << text;
  EXPECT_THAT(text, ContainsRegex("\"pmubench_profile_real_time_ns\": "
                                  "[0-9]+\\.[0-9]+"));
  EXPECT_THAT(text, HasSubstr("\"pmubench_profile_slowdown_warning\": "
                              "\"the profiled batch ran "));
  EXPECT_THAT(text, ContainsRegex("\"pmubench_profile_suggested_period\": "
                                  "[0-9]+"));
}

// A sample a second never comes in a 40 ms batch: the ratio is reported,
// near 1, and no warning.
TEST_F(E2eTest, ProfileOfRareSamplesReportsTheRatioWithoutAWarning) {
  // Two 40 ms batches of real time: on a loaded machine one can be
  // preempted past 1.5x, so every attempt checks that the warning follows
  // the ratio it reports, and one of three must be quiet enough to show
  // the ratio without a warning.
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const std::string json = dir_ + "/out" + std::to_string(attempt) + ".json";
    Result r = RunCases(
        "--benchmark_filter=BM_ShortStepsLong "
        "--pmubench_profile=cpu-clock@1000000000 --benchmark_out='" + json +
        "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("profile cpu-clock@1000000000: "));
    const std::string text = ReadFile(json);
    const double slowdown = ProfileSlowdownIn(text);
    ASSERT_GT(slowdown, 0) << text;
    const bool warned = text.find("pmubench_profile_slowdown_warning") !=
                        std::string::npos;
    EXPECT_EQ(warned, slowdown > 1.5) << text;
    EXPECT_EQ(r.out.find("warning: the profiled batch") != std::string::npos,
              warned) << r.out;
    if (slowdown <= 1.5) {
      EXPECT_THAT(text, Not(HasSubstr("pmubench_profile_suggested_period")));
      return;
    }
  }
  GTEST_SKIP() << "three profiled batches ran over 1.5x the measured ones: "
                  "the machine is too loaded to see a quiet profile";
}

TEST_F(E2eTest, BadProfileFlagsExitTwo) {
  EXPECT_EQ(RunCases("--pmubench_profile=page-faults@0").exit_code, 2);
  EXPECT_EQ(RunCases("--pmubench_profile=page-faults@x").exit_code, 2);
  EXPECT_EQ(RunCases("--pmubench_profile=no-such-event").exit_code, 2);
  Result r = RunCases(
      "--pmubench_profile=page-faults --pmubench_profile_out=/tmp/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--pmubench_profile_callchain"));
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pmubench::testing::TakeCasesBinaryFlag(argc, argv);
  return RUN_ALL_TESTS();
}
