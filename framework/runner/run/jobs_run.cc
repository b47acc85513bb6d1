#include "framework/runner/run/jobs_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/runner/output/progress.h"
#include "framework/runner/output/write_all.h"
#include "framework/runner/plan/case_seconds.h"
#include "framework/runner/plan/family_fit.h"
#include "framework/runner/plan/job_split.h"
#include "framework/runner/plan/shard.h"
#include "framework/runner/profile/worker_profiles.h"
#include "framework/runner/run/run_record.h"
#include "framework/runner/run/unit_child.h"
#include "framework/runner/run/worker_process.h"
#include "framework/runner/simulate/callgrind.h"

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

void WriteRecord(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;  // the parent then finds the case missing
    done += static_cast<size_t>(n);
  }
}

// A worker's display reporter: each ReportRuns call's runs appended to its
// .runs file at once, so the cases it finished are kept if it dies. With a
// simulated profile, each case's profile rendered (worker_profiles.h) and
// appended to its .profiles file first, so that the parent has it when it
// reads the runs.
class RecordWriter : public benchmark::BenchmarkReporter {
 public:
  RecordWriter(int fd, int profiles_fd,
               std::optional<SimulatedProfileRenderer> renderer)
      : fd_(fd), profiles_fd_(profiles_fd), renderer_(std::move(renderer)) {}
  ~RecordWriter() override {
    ::close(fd_);
    if (profiles_fd_ >= 0) ::close(profiles_fd_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& report) override {
    WriteProfiles(report);
    WriteRecord(fd_, internal::EncodeRuns(report));
  }

 private:
  void WriteProfiles(const std::vector<Run>& report) {
    if (!renderer_.has_value()) return;
    for (const Run& run : report) {
      if (std::optional<RenderedProfile> p = renderer_->Render(run)) {
        WriteRecord(
            profiles_fd_,
            internal::EncodeProfile({run.run_name.str(), std::move(p->console),
                                     std::move(p->json)}));
      }
    }
  }

  int fd_;
  int profiles_fd_;
  std::optional<SimulatedProfileRenderer> renderer_;
};

// A worker's RecordWriter on FILES.runs (and FILES.profiles with
// `profile`), each opened anew.
absl::StatusOr<std::unique_ptr<benchmark::BenchmarkReporter>> OpenRecordWriter(
    const std::string& files, std::optional<ProfileConfig> profile) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC;
  const int fd = ::open((files + ".runs").c_str(), kFlags, 0600);
  const int profiles_fd =
      profile.has_value() ? ::open((files + ".profiles").c_str(), kFlags, 0600)
                          : -1;
  if (fd < 0 || (profile.has_value() && profiles_fd < 0)) {
    const int open_errno = errno;
    if (fd >= 0) ::close(fd);
    if (profiles_fd >= 0) ::close(profiles_fd);
    return absl::InvalidArgumentError(
        absl::StrCat(files, fd < 0 ? ".runs" : ".profiles",
                     ": cannot be written: ", std::strerror(open_errno)));
  }
  std::optional<SimulatedProfileRenderer> renderer;
  if (profile.has_value()) renderer.emplace(*std::move(profile));
  return std::make_unique<RecordWriter>(fd, profiles_fd, std::move(renderer));
}

// In a worker: the next unit its parent sent on `fd` (names a line each,
// then an empty line) into `unit`; false at the end of the input. `pending`
// keeps what was read past the unit.
bool NextUnit(int fd, std::string& pending, std::vector<std::string>& unit) {
  size_t end;
  while ((end = pending.find("\n\n")) == std::string::npos) {
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    pending.append(buffer, static_cast<size_t>(n));
  }
  unit = absl::StrSplit(pending.substr(0, end), '\n');
  pending.erase(0, end + 2);
  return true;
}

// In a worker: each unit its parent sends run with `display`, "done" said
// after each. Under callgrind each unit runs in a child (unit_child.h).
size_t RunUnits(internal::WorkerPipes pipes,
                benchmark::BenchmarkReporter* display) {
  size_t ran = 0;
  std::string pending;
  for (std::vector<std::string> unit; NextUnit(pipes.in, pending, unit);) {
    benchmark::FLAGS_benchmark_filter = internal::ExactNamesFilter(unit);
    ran += internal::Callgrind::Running()
               ? internal::RunUnitInChild(display)
               : benchmark::RunSpecifiedBenchmarks(display);
    if (internal::WriteAll(pipes.out, "done\n") != 0) break;
  }
  return ran;
}

// A forked worker (JobsRequest::fork): this process as it was when the
// parent's run began, writing its records to `files` and not to the run's
// --benchmark_out, which is the parent's.
int ForkedWorkerMain(internal::WorkerPipes pipes, const std::string& files,
                     const std::optional<ProfileConfig>& profile) {
  benchmark::FLAGS_benchmark_out.clear();
  absl::StatusOr<std::unique_ptr<benchmark::BenchmarkReporter>> writer =
      OpenRecordWriter(files, profile);
  if (!writer.ok()) return 127;
  RunUnits(pipes, writer->get());
  writer->reset();  // closes its files
  std::fflush(nullptr);
  return 0;
}

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

// What `path` holds past `offset`, and `offset` moved to its end.
std::string ReadOnFrom(const std::string& path, size_t& offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream text;
  if (in) text << in.rdbuf();
  std::string rest = text.str();
  offset += rest.size();
  return rest;
}

std::string ReadWhole(const std::string& path) {
  size_t offset = 0;
  return ReadOnFrom(path, offset);
}

// The last `n` lines of `text`.
std::string Tail(const std::string& text, int n) {
  size_t start = text.size();
  for (int lines = 0; start > 0 && lines <= n;) {
    if (text[--start] == '\n') ++lines;
  }
  return text.substr(start == 0 ? 0 : start + 1);
}

// One worker process, from its start to its end. A worker that dies is
// replaced by another in the same slot, a Worker of its own.
struct Worker {
  int slot = 0;      // 1..jobs
  std::string name;  // "--pmubench_jobs worker 1 of 2", as messages call it
  std::vector<std::string> cases;  // every instance it was given
  std::string files;  // its files' prefix in the parent's directory
  internal::WorkerHandle handle;
  std::optional<size_t> unit;                   // the unit it runs now
  std::chrono::steady_clock::time_point given;  // when it got that unit
  std::string said;  // what it wrote on its "done" pipe, unread
  bool ended = false;
  internal::WorkerEnd end;
};

// Every selected instance's place in the serial run: Google Benchmark
// numbers the families that have a selected instance in registration order
// (family_index) and a family's instances from 0 (per_family_instance_index);
// a worker numbers only the unit it ran.
struct SerialNumbers {
  std::map<std::string, int64_t> family;    // family name -> family_index
  std::map<std::string, int64_t> instance;  // instance -> its index in family
};

SerialNumbers NumberAsSerial(const std::vector<std::string>& instances) {
  SerialNumbers numbers;
  std::map<std::string, int64_t> members;
  for (const std::string& name : instances) {
    const std::string family(internal::FamilyOf(name));
    numbers.family.emplace(family, numbers.family.size());
    numbers.instance.emplace(name, members[family]++);
  }
  return numbers;
}

// `record`, filed under instance `name`, numbered as the serial run numbers
// it. A whole family's fit rows (named after no instance) keep the index the
// worker gave them: the worker ran the family whole, as the serial run does.
std::vector<ReportedRun> Renumbered(std::vector<ReportedRun> record,
                                    const std::string& name,
                                    const SerialNumbers& numbers) {
  for (ReportedRun& run : record) {
    run.family_index = numbers.family.at(std::string(internal::FamilyOf(name)));
    if (run.run_name.str() == name) {
      run.per_family_instance_index = numbers.instance.at(name);
    }
  }
  return record;
}

// The row of a case its worker did not report.
ReportedRun FailedRow(const std::string& name, const Worker& w,
                      const SerialNumbers& numbers) {
  ReportedRun run;
  run.run_name.function_name = name;
  run.family_index = numbers.family.at(std::string(internal::FamilyOf(name)));
  run.per_family_instance_index = numbers.instance.at(name);
  run.repetition_index = 0;
  run.repetitions = 1;
  run.iterations = 0;
  run.error_occurred = true;
  run.error_message = absl::StrCat(
      "not run to its end: pmubench ", w.name,
      ", which ran it, ended before reporting it: ", w.end.description);
  return run;
}

// Says which worker failed, how, which of its cases failed, and how its
// output ends.
void SayFailure(const Worker& w, const std::vector<std::string>& failed,
                std::ostream& err) {
  err << "pmubench: " << w.name << " ended: " << w.end.description << "; "
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

// The rows, reported in registration order as they come in: a row goes out
// once it and every row before it are in (its unit done, or failed).
class InOrderReport {
 public:
  InOrderReport(const std::vector<std::string>& instances,
                benchmark::BenchmarkReporter* display,
                benchmark::BenchmarkReporter* file)
      : instances_(Unique(instances)),
        numbers_(NumberAsSerial(instances)),
        display_(display),
        file_(file) {}

  // `unit` of worker `w` ended, done (in `seconds`) or not: its reported
  // records are read, a failed row made for each of its cases without one.
  void UnitEnded(const internal::Unit& unit, const Worker& w,
                 std::optional<double> seconds = std::nullopt) {
    ReadSoFar& read = read_[&w];
    for (internal::ProfileRecord& p : internal::DecodeProfiles(
             ReadOnFrom(w.files + ".profiles", read.profiles))) {
      AddWorkerProfile(p.run_name, {std::move(p.console), std::move(p.json)});
    }
    std::map<std::string, Records> by_case = NewRecords(unit, w, read);
    if (seconds.has_value()) ShareSeconds(unit, by_case, *seconds);
    for (const std::string& name : unit) {
      if (auto it = by_case.find(name); it != by_case.end()) {
        for (const auto& record : it->second) {
          rows_[name].push_back(Renumbered(record, name, numbers_));
        }
      } else {
        rows_[name].push_back({FailedRow(name, w, numbers_)});
        failed_[&w].push_back(name);
      }
    }
    Flush();
  }

  const std::vector<std::string>& FailedOf(const Worker& w) const {
    static const std::vector<std::string> kNone;
    auto it = failed_.find(&w);
    return it == failed_.end() ? kNone : it->second;
  }

 private:
  // How far the parent has read a worker's files. A worker is idle when
  // its unit ends (it waits for the next), so what its files hold then is
  // whole records, each read once: reading the whole file at every unit's
  // end took time in the square of the cases a worker ran.
  struct ReadSoFar {
    size_t runs = 0;
    size_t profiles = 0;
    std::string current;  // the case the last record read belongs to
  };

  // The records worker w wrote for `unit` (all since the last read), by
  // the instance they belong to: a record whose runs name none of its
  // cases (a family's complexity fit) follows the case reported before it.
  static std::map<std::string, Records> NewRecords(const internal::Unit& unit,
                                                   const Worker& w,
                                                   ReadSoFar& read) {
    const std::set<std::string> mine(unit.begin(), unit.end());
    std::map<std::string, Records> by_case;
    for (auto& record :
         internal::DecodeRuns(ReadOnFrom(w.files + ".runs", read.runs))) {
      if (record.empty()) continue;
      const std::string name = record.front().run_name.str();
      if (mine.count(name) > 0) read.current = name;
      if (!read.current.empty()) {
        by_case[read.current].push_back(std::move(record));
      }
    }
    return by_case;
  }

  // A unit's time (plan/case_seconds.h) to its cases, in proportion to
  // the time their measured runs took (evenly when they took none).
  static void ShareSeconds(const internal::Unit& unit,
                           const std::map<std::string, Records>& by_case,
                           double seconds) {
    std::map<std::string, double> measured;
    double total = 0;
    for (const std::string& name : unit) {
      auto it = by_case.find(name);
      if (it == by_case.end()) continue;
      for (const auto& record : it->second) {
        for (const ReportedRun& run : record) {
          if (run.run_type != ReportedRun::RT_Iteration) continue;
          measured[name] += run.real_accumulated_time;
          total += run.real_accumulated_time;
        }
      }
    }
    for (const std::string& name : unit) {
      internal::AddCaseSeconds(
          name, total > 0 ? seconds * measured[name] / total
                          : seconds / static_cast<double>(unit.size()));
    }
  }

  void Flush() {
    for (; next_ < instances_.size(); ++next_) {
      auto it = rows_.find(instances_[next_]);
      if (it == rows_.end()) return;
      for (const std::vector<ReportedRun>& record : it->second) {
        display_->ReportRuns(record);
        if (file_ != nullptr) file_->ReportRuns(record);
      }
      rows_.erase(it);
    }
  }

  // A name two registrations share once: its unit reports both.
  static std::vector<std::string> Unique(
      const std::vector<std::string>& names) {
    std::set<std::string> seen;
    std::vector<std::string> unique;
    for (const std::string& name : names) {
      if (seen.insert(name).second) unique.push_back(name);
    }
    return unique;
  }

  const std::vector<std::string> instances_;
  const SerialNumbers numbers_;
  benchmark::BenchmarkReporter* display_;
  benchmark::BenchmarkReporter* file_;
  size_t next_ = 0;
  std::map<std::string, Records> rows_;
  std::map<const Worker*, std::vector<std::string>> failed_;
  std::map<const Worker*, ReadSoFar> read_;
};

// The units handed out, one to each idle worker, in dispatch order; a
// worker that dies is replaced while units are left.
class Dispatcher {
 public:
  Dispatcher(const std::vector<internal::Unit>& units,
             std::vector<size_t> order, const JobsRequest& request,
             std::string dir, InOrderReport& report)
      : units_(units),
        order_(std::move(order)),
        args_(internal::WorkerArgs(request.args)),
        jobs_(request.jobs),
        fork_(request.fork),
        profile_(request.profile),
        dir_(std::move(dir)),
        report_(report) {}

  // Runs every unit; the workers, each ended.
  std::deque<Worker>& Run() {
    const int slots = static_cast<int>(
        std::min<size_t>(static_cast<size_t>(jobs_), units_.size()));
    for (int slot = 1; slot <= slots; ++slot) Start(slot);
    while (Step()) {
    }
    return workers_;
  }

 private:
  // A worker in `slot`, given its first unit.
  void Start(int slot) {
    Worker& w = workers_.emplace_back();
    w.slot = slot;
    w.name = fork_
                 ? "process forked to run the cases"
                 : absl::StrCat("--pmubench_jobs worker ", slot, " of ", jobs_);
    w.files = absl::StrCat(dir_, "/worker", workers_.size());
    absl::StatusOr<internal::WorkerHandle> handle =
        fork_ ? internal::ForkWorker([&](internal::WorkerPipes pipes) {
          return ForkedWorkerMain(pipes, w.files, profile_);
        })
              : internal::StartWorker(args_, w.files);
    if (handle.ok()) {
      w.handle = *handle;
      GiveNext(w);
      return;
    }
    w.ended = true;
    w.end = {false,
             absl::StrCat("could not be started: ", handle.status().message())};
    // No worker to run what is left in this slot: it fails, unit by unit.
    while (next_ < order_.size()) {
      w.unit = order_[next_++];
      Assign(w);
      report_.UnitEnded(units_[*w.unit], w);
    }
  }

  void Assign(Worker& w) {
    const internal::Unit& unit = units_[*w.unit];
    w.cases.insert(w.cases.end(), unit.begin(), unit.end());
  }

  // The next unit to `w`, or the end of its input when none is left.
  void GiveNext(Worker& w) {
    w.unit.reset();
    if (next_ < order_.size()) {
      w.unit = order_[next_++];
      w.given = std::chrono::steady_clock::now();
      Assign(w);
      const std::string text =
          absl::StrCat(absl::StrJoin(units_[*w.unit], "\n"), "\n\n");
      if (internal::WriteAll(w.handle.to_worker, text) == 0) return;
      // Gone already: its "done" pipe reads end of file next.
    }
    ::close(w.handle.to_worker);
    w.handle.to_worker = -1;
  }

  bool Step();
  void Read(Worker& w);
  void Ended(Worker& w);

  const std::vector<internal::Unit>& units_;
  const std::vector<size_t> order_;
  const std::vector<std::string> args_;
  const int jobs_;
  const bool fork_;
  const std::optional<ProfileConfig> profile_;
  const std::string dir_;
  InOrderReport& report_;
  size_t next_ = 0;
  std::deque<Worker> workers_;  // deque: a Worker never moves
};

// Waits for a worker to say something or end; false when all have ended.
bool Dispatcher::Step() {
  std::vector<pollfd> fds;
  std::vector<Worker*> of;
  for (Worker& w : workers_) {
    if (w.ended) continue;
    fds.push_back({w.handle.from_worker, POLLIN, 0});
    of.push_back(&w);
  }
  if (fds.empty()) return false;
  if (::poll(fds.data(), fds.size(), -1) < 0) return true;  // EINTR
  for (size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents != 0) Read(*of[i]);
  }
  return true;
}

// What worker `w` wrote: "done" ends its unit; end of file, the worker.
void Dispatcher::Read(Worker& w) {
  char buffer[256];
  const ssize_t n = ::read(w.handle.from_worker, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) return Ended(w);
  w.said.append(buffer, static_cast<size_t>(n));
  for (size_t end; (end = w.said.find('\n')) != std::string::npos;) {
    w.said.erase(0, end + 1);
    if (!w.unit.has_value()) continue;
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - w.given;
    report_.UnitEnded(units_[*w.unit], w, took.count());
    GiveNext(w);
  }
}

// Worker `w` ended: its unit, if it had one, fails; another worker takes
// its slot while units are left.
void Dispatcher::Ended(Worker& w) {
  ::close(w.handle.from_worker);
  if (w.handle.to_worker >= 0) ::close(w.handle.to_worker);
  w.end = internal::WaitForWorker(w.handle.pid);
  w.ended = true;
  if (w.unit.has_value()) {
    if (w.end.ok) w.end = {false, "exit status 0 before its unit was done"};
    report_.UnitEnded(units_[*w.unit], w);
    w.unit.reset();
    if (next_ < order_.size()) Start(w.slot);
  }
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
  const std::vector<internal::Unit> units =
      internal::WorkUnits(instances, internal::FamilyMustStayWhole);
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = NameFieldWidth();
  display->ReportContext(context);
  if (file != nullptr) file->ReportContext(context);
  // A worker gone mid-write must not end the parent (write(2): EPIPE).
  struct sigaction ignore = {}, before = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &before);
  InOrderReport report(instances, display, file);
  Dispatcher dispatcher(units, internal::DispatchOrder(units, request.costs),
                        request, *dir, report);
  std::deque<Worker>& workers = dispatcher.Run();
  ::sigaction(SIGPIPE, &before, nullptr);
  std::set<std::string> said;
  int status = 0;
  for (const Worker& w : workers) {
    RelayCaseNotices(w, said, err);
    if (w.end.ok && report.FailedOf(w).empty()) continue;
    SayFailure(w, report.FailedOf(w), err);
    status = 1;
  }
  display->Finalize();
  if (file != nullptr) file->Finalize();
  std::error_code ignored;
  std::filesystem::remove_all(*dir, ignored);
  return {instances.size(), status};
}

absl::StatusOr<std::unique_ptr<benchmark::BenchmarkReporter>> PrepareWorker(
    const std::string& files, std::optional<ProfileConfig> profile) {
  if (!internal::WorkerPipesFromEnv().has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        internal::kWorkerEnv, "=", files,
        ": not a --pmubench_jobs worker's files (the parent sets this "
        "variable and ",
        internal::kWorkerPipesEnv, "; unset them)"));
  }
  return OpenRecordWriter(files, std::move(profile));
}

size_t RunWorkerUnits(benchmark::BenchmarkReporter* display) {
  return RunUnits(*internal::WorkerPipesFromEnv(), display);
}

}  // namespace pmubench
