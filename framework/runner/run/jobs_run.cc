#include "framework/runner/run/jobs_run.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/runner/output/progress.h"
#include "framework/runner/plan/job_split.h"
#include "framework/runner/plan/shard.h"
#include "framework/runner/run/run_record.h"
#include "framework/runner/run/worker_process.h"

// Google Benchmark 1.7.1 defines its flags as exported globals
// (src/commandlineflags.h, BM_DECLARE_*); benchmark.h does not declare them.
namespace benchmark {
extern std::string FLAGS_benchmark_filter;
extern std::string FLAGS_benchmark_out;
}  // namespace benchmark

namespace pmubench {
namespace {

using internal::ReportedRun;
using Records = std::vector<std::vector<ReportedRun>>;

// A worker's display reporter: each ReportRuns call's runs appended to its
// .runs file at once, so the cases it finished are kept if it dies.
class RecordWriter : public benchmark::BenchmarkReporter {
 public:
  explicit RecordWriter(int fd) : fd_(fd) {}
  ~RecordWriter() override { ::close(fd_); }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& report) override {
    const std::string text = internal::EncodeRuns(report);
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n <= 0) break;  // the parent then finds the case missing
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

// Only reads the context Google Benchmark would give the reporters (the
// name column's width, from every selected instance); runs nothing.
class ContextProbe : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override {
    width_ = context.name_field_width;
    return false;  // RunSpecifiedBenchmarks then runs no benchmark
  }
  void ReportRuns(const std::vector<Run>&) override {}
  size_t width() const { return width_; }

 private:
  size_t width_ = 10;
};

size_t NameFieldWidth() {
  const std::string out = benchmark::FLAGS_benchmark_out;
  benchmark::FLAGS_benchmark_out.clear();  // no file opened for the probe
  ContextProbe probe;
  benchmark::RunSpecifiedBenchmarks(&probe);
  benchmark::FLAGS_benchmark_out = out;
  return probe.width();
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last `n` lines of `text`.
std::string Tail(const std::string& text, int n) {
  size_t start = text.size();
  for (int lines = 0; start > 0 && lines <= n;) {
    if (text[--start] == '\n') ++lines;
  }
  return text.substr(start == 0 ? 0 : start + 1);
}

struct Worker {
  std::vector<std::string> cases;
  std::string files;  // its files' prefix in the parent's directory
  pid_t pid = -1;
  internal::WorkerEnd end;
  Records records;
};

// Each non-empty part's worker started on its own .cases file in `dir`.
std::vector<Worker> StartWorkers(
    const std::vector<std::vector<std::string>>& parts, const std::string& dir,
    const std::vector<std::string>& args) {
  std::vector<Worker> workers;
  const std::vector<std::string> worker_args = internal::WorkerArgs(args);
  for (const std::vector<std::string>& part : parts) {
    if (part.empty()) continue;
    Worker& w = workers.emplace_back();
    w.cases = part;
    w.files = absl::StrCat(dir, "/worker", workers.size());
    std::ofstream(w.files + ".cases") << absl::StrJoin(part, "\n") << "\n";
    absl::StatusOr<pid_t> pid = internal::StartWorker(worker_args, w.files);
    if (pid.ok()) {
      w.pid = *pid;
    } else {
      w.end = {false,
               absl::StrCat("could not be started: ", pid.status().message())};
    }
  }
  return workers;
}

// Each worker waited for and its reported runs read.
void FinishWorkers(std::vector<Worker>& workers) {
  for (Worker& w : workers) {
    if (w.pid > 0) w.end = internal::WaitForWorker(w.pid);
    w.records = internal::DecodeRuns(ReadWhole(w.files + ".runs"));
  }
}

// A worker's records by the instance they belong to: a record whose runs
// name none of its cases (a family's complexity fit) follows the case
// reported before it.
void FileRecords(const Worker& w, std::map<std::string, Records>& by_case) {
  const std::set<std::string> mine(w.cases.begin(), w.cases.end());
  std::string current;
  for (const std::vector<ReportedRun>& record : w.records) {
    if (record.empty()) continue;
    const std::string name = record.front().run_name.str();
    if (mine.count(name) > 0) current = name;
    if (!current.empty()) by_case[current].push_back(record);
  }
}

// The row of a case its worker did not report.
ReportedRun FailedRow(const std::string& name, const Worker& w, int index,
                      int total) {
  ReportedRun run;
  run.run_name.function_name = name;
  run.family_index = -1;
  run.per_family_instance_index = -1;
  run.repetition_index = 0;
  run.repetitions = 1;
  run.iterations = 0;
  run.error_occurred = true;
  run.error_message = absl::StrCat(
      "not run to its end: pmubench --pmubench_jobs worker ", index, " of ",
      total, ", which ran it, ended before reporting it: ", w.end.description);
  return run;
}

void ReportAll(const std::vector<ReportedRun>& runs,
               benchmark::BenchmarkReporter* display,
               benchmark::BenchmarkReporter* file) {
  display->ReportRuns(runs);
  if (file != nullptr) file->ReportRuns(runs);
}

// Says which worker failed, how, which of its cases failed, and how its
// output ends.
void SayFailure(const Worker& w, int index, int total,
                const std::vector<std::string>& failed, std::ostream& err) {
  err << "pmubench: --pmubench_jobs worker " << index << " of " << total
      << " ended: " << w.end.description << "; "
      << (failed.empty()
              ? std::string("every case it ran was reported")
              : absl::StrCat(
                    failed.size(), " of its ", w.cases.size(),
                    " cases failed with it: ", absl::StrJoin(failed, ", ")))
      << "\n";
  const std::string log = Tail(ReadWhole(w.files + ".log"), 10);
  if (!log.empty()) err << "its output ends:\n" << log;
  if (!log.empty() && log.back() != '\n') err << "\n";
}

// The notices a worker said about its own cases ("pmubench: " lines that
// name one of its families, e.g. a layout check's or a thread notice), said
// again by the parent: the worker's stderr is a file, read here only. A
// line said by several workers is said once.
void RelayCaseNotices(const Worker& w, std::set<std::string>& said,
                      std::ostream& err) {
  std::set<std::string, std::less<>> families;
  for (const std::string& name : w.cases) {
    families.emplace(internal::FamilyOf(name));
  }
  std::istringstream log(ReadWhole(w.files + ".log"));
  for (std::string line; std::getline(log, line);) {
    if (line.rfind("pmubench: ", 0) != 0 || said.count(line) > 0) continue;
    for (const std::string& family : families) {
      if (line.find(family + " ") != std::string::npos ||
          line.find(family + "/") != std::string::npos) {
        err << line << "\n";
        said.insert(line);
        break;
      }
    }
  }
}

// Google Benchmark numbers the families that have a selected instance in
// registration order (family_index); a worker numbers only its own. Its
// number in worker `w` maps to the serial run's: the order in which the
// families first appear among all the instances. A family is whole in one
// worker (plan/job_split.h), so per_family_instance_index needs no change.
class FamilyNumbers {
 public:
  int64_t Of(const std::string& key) {
    auto [it, added] = ids_.emplace(key, static_cast<int64_t>(ids_.size()));
    return it->second;
  }

 private:
  std::map<std::string, int64_t> ids_;
};

// `records` with their family numbers the serial run's.
Records Renumbered(Records records, int w, FamilyNumbers& families) {
  for (std::vector<ReportedRun>& record : records) {
    for (ReportedRun& run : record) {
      run.family_index = families.Of(absl::StrCat(w, ":", run.family_index));
    }
  }
  return records;
}

// Every instance's runs in registration order, a failed row for each one
// its worker did not report; the exit status.
int ReportInOrder(const std::vector<std::string>& instances,
                  const std::vector<Worker>& workers,
                  benchmark::BenchmarkReporter* display,
                  benchmark::BenchmarkReporter* file, std::ostream& err) {
  std::map<std::string, Records> by_case;
  std::map<std::string, int> worker_of;
  for (size_t i = 0; i < workers.size(); ++i) {
    FileRecords(workers[i], by_case);
    for (const std::string& name : workers[i].cases) worker_of[name] = i;
  }
  const int total = static_cast<int>(workers.size());
  std::vector<std::vector<std::string>> failed(workers.size());
  FamilyNumbers families;
  for (const std::string& name : instances) {
    const int w = worker_of[name];
    if (auto it = by_case.find(name); it != by_case.end()) {
      for (const auto& record : Renumbered(it->second, w, families)) {
        ReportAll(record, display, file);
      }
      continue;
    }
    failed[w].push_back(name);
    ReportedRun row = FailedRow(name, workers[w], w + 1, total);
    row.family_index = families.Of(
        absl::StrCat(w, ":", std::string(internal::FamilyOf(name))));
    ReportAll({row}, display, file);
  }
  int status = 0;
  for (size_t i = 0; i < workers.size(); ++i) {
    if (workers[i].end.ok && failed[i].empty()) continue;
    SayFailure(workers[i], static_cast<int>(i) + 1, total, failed[i], err);
    status = 1;
  }
  return status;
}

// A private directory for the workers' files (mkdtemp(3) under $TMPDIR).
absl::StatusOr<std::string> MakeJobsDirectory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                  "/pmubench-jobs.XXXXXX");
  if (::mkdtemp(path.data()) == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        "--pmubench_jobs: cannot make a directory for the workers' files in ",
        path.substr(0, path.rfind('/')), ": ", std::strerror(errno),
        "; set TMPDIR to a writable directory"));
  }
  return path;
}

}  // namespace

JobsOutcome RunInWorkers(const JobsRequest& request,
                         benchmark::BenchmarkReporter* display,
                         benchmark::BenchmarkReporter* file,
                         std::ostream& err) {
  const std::vector<std::string> instances = ListSelectedBenchmarks();
  if (instances.empty()) return {};
  absl::StatusOr<std::string> dir = MakeJobsDirectory();
  if (!dir.ok()) {
    err << "pmubench: error: " << dir.status().message() << "\n";
    return {0, 1};
  }
  std::vector<Worker> workers =
      StartWorkers(internal::SplitJobs(instances, request.jobs, request.costs),
                   *dir, request.args);
  FinishWorkers(workers);
  std::set<std::string> said;
  for (const Worker& w : workers) RelayCaseNotices(w, said, err);
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = NameFieldWidth();
  display->ReportContext(context);
  if (file != nullptr) file->ReportContext(context);
  const int status = ReportInOrder(instances, workers, display, file, err);
  display->Finalize();
  if (file != nullptr) file->Finalize();
  std::error_code ignored;
  std::filesystem::remove_all(*dir, ignored);
  return {instances.size(), status};
}

absl::StatusOr<std::unique_ptr<benchmark::BenchmarkReporter>> PrepareWorker(
    const std::string& files) {
  std::vector<std::string> names;
  std::ifstream cases(files + ".cases");
  for (std::string line; std::getline(cases, line);) {
    if (!line.empty()) names.push_back(line);
  }
  const int fd =
      ::open((files + ".runs").c_str(),
             O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0600);
  if (names.empty() || fd < 0) {
    if (fd >= 0) ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(
        internal::kWorkerEnv, "=", files,
        ": not a --pmubench_jobs worker's files (the parent sets this "
        "variable; unset it)"));
  }
  benchmark::FLAGS_benchmark_filter = internal::ExactNamesFilter(names);
  return std::make_unique<RecordWriter>(fd);
}

}  // namespace pmubench
