// main() of pmubench_main: Google Benchmark's flags plus ours, the counter
// session and every output path checked before any benchmark runs, the
// pmubench console reporter, and the output files (--benchmark_out, as
// strict JSON, and --pmubench_profile_out) each written whole or not at all.
//
// Exit status: 0 after a run (a case that failed is marked failed in the
// console and JSON), 2 on bad input: an unknown flag, a Google Benchmark
// flag with a bad value, an event that is unknown, malformed, missing on this
// machine or not permitted, an output file that cannot be created (checked
// before the first case), or a --benchmark_filter that runs nothing; 1 when
// an output file could not be written whole at the end (that file is not
// left, stderr names it, and the other output files are written all the
// same).
#include "framework/runner/run/run_main.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "framework/perf/events/event_spec.h"
#include "framework/perf/events/pmu.h"
#include "framework/perf/symbols/symbolizer.h"
#include "framework/runner/alloc/alloc_probe.h"
#include "framework/runner/alloc/memory_manager.h"
#include "framework/runner/cli/allocations_flag.h"
#include "framework/runner/cli/benchmark_flags.h"
#include "framework/runner/cli/command_line.h"
#include "framework/runner/cli/event_list.h"
#include "framework/runner/cli/jobs_flag.h"
#include "framework/runner/cli/simulation_options.h"
#include "framework/runner/output/atomic_file.h"
#include "framework/runner/output/captured_reporter.h"
#include "framework/runner/output/console_reporter.h"
#include "framework/runner/output/output_file.h"
#include "framework/runner/profile/profile_json.h"
#include "framework/runner/profile/profile_pass.h"
#include "framework/runner/run/build_info.h"
#include "framework/runner/run/jobs_run.h"
#include "framework/runner/run/shard_run.h"
#include "framework/runner/run/worker_process.h"
#include "framework/runner/session/session.h"
#include "framework/runner/simulate/callgrind.h"

ABSL_FLAG(std::string, counters, "",
          "Events to count in every PMU_BENCHMARK case, comma separated and "
          "spelled as for `perf stat -e` (cycles, instructions, "
          "L1-dcache-load-misses, task-clock, page-faults, msr/tsc/, "
          "r01c2, cpu/event=0xc0/, ...; :u/:k modifiers), or 'none' to turn "
          "counting off. Default: each case's own list, else "
          "cycles,instructions,branches,branch-misses, or "
          "task-clock,page-faults,context-switches on a machine without a "
          "hardware PMU.");
ABSL_FLAG(bool, pmubench_no_rdpmc, false,
          "Read counters with read(2) even where rdpmc is allowed.");
ABSL_FLAG(bool, pmubench_multiplex, false,
          "Count a set that does not fit the PMU in one pass: its groups "
          "at once, not pinned, rotated by the kernel and scaled by their "
          "running fractions (estimates; pmu_running_fraction shows how "
          "much was counted). Default: pinned groups that take turns, each "
          "batch running once per group, every count exact.");
ABSL_FLAG(bool, pmubench_list_events, false,
          "Print the events this machine can count, each one tried "
          "(perf_event_open, then closed), grouped as `perf list` groups "
          "them, and apart the ones it cannot count with the errno; exit.");
ABSL_FLAG(std::string, pmubench_profile, "",
          "EVENT[@PERIOD]: after each case's measured runs, run it once more "
          "(one batch of the measured iteration count, not timed) sampling "
          "EVENT every PERIOD events, and print its top functions: "
          "cpu-clock@10000 (ns), page-faults@1, instructions@100000.");
ABSL_FLAG(bool, pmubench_profile_callchain, false,
          "With --pmubench_profile: record call chains (for folded stacks).");
ABSL_FLAG(std::string, pmubench_profile_out, "",
          "With --pmubench_profile_callchain: write folded stacks "
          "(\"case;outer;...;inner count\" lines, as flame graph tools read "
          "them) to this file.");

ABSL_FLAG(std::string, pmubench_simulate, "",
          "instructions|cache (a bare --pmubench_simulate: instructions): "
          "count with Valgrind's callgrind instead of the PMU, on any "
          "machine: exact, deterministic instruction counts; 'cache' adds "
          "simulated L1/last-level caches and branch prediction. The binary "
          "runs itself again under valgrind --tool=callgrind (a binary "
          "already under callgrind uses it). Each batch runs a fixed number "
          "of iterations; times are valgrind's, not native.");
ABSL_FLAG(int64_t, pmubench_simulate_iterations, 0,
          "With --pmubench_simulate: n, the loop steps of the smaller "
          "measured segment (a batch runs n, n, n and 2n steps); 0: 10. "
          "Instruction counts are exact at any n; simulated misses are "
          "averaged over n and 2n steps.");
ABSL_FLAG(bool, pmubench_layout_check, false,
          "With --pmubench_simulate: run each batch a second time at other "
          "addresses and mark rows whose instruction count differs "
          "(pmubench_layout_sensitive); twice the time.");
ABSL_FLAG(std::string, pmubench_simulate_i1, pmubench::internal::kDefaultI1,
          "With --pmubench_simulate=cache: the simulated L1 instruction "
          "cache, SIZE,ASSOCIATIVITY,LINE_SIZE in bytes (valgrind's --I1).");
ABSL_FLAG(std::string, pmubench_simulate_d1, pmubench::internal::kDefaultD1,
          "With --pmubench_simulate=cache: the simulated L1 data cache "
          "(valgrind's --D1).");
ABSL_FLAG(std::string, pmubench_allocations, "on",
          "on: count heap allocations per iteration (allocs_per_iter, "
          "alloc_bytes_per_iter, frees_per_iter, max_bytes_used); off: "
          "leave them out.");
ABSL_FLAG(
    std::string, pmubench_jobs, "",
    "N: run the cases in N worker processes, each taking the next "
    "case when it is done (a family with a complexity fit whole), "
    "their results reported in registration order as one run's. "
    "Default: under --pmubench_simulate the CPUs this process may run "
    "on (counts are the same whatever runs beside a case); natively 1 "
    "(times, cycles, cache and branch misses are perturbed by cases running "
    "beside; instruction counts stay exact), and 1 with a sampled "
    "--pmubench_profile, which re-runs each case where it is reported. "
    "--pmubench_shard_costs=RUN.json hands out the longest cases of that run "
    "first.");
ABSL_FLAG(std::string, pmubench_simulate_ll, pmubench::internal::kDefaultLL,
          "With --pmubench_simulate=cache: the simulated last-level cache "
          "(valgrind's --LL).");

// Google Benchmark 1.7.1 defines its flags as exported globals
// (src/commandlineflags.h, BM_DECLARE_*); benchmark.h does not declare them.
namespace benchmark {
extern bool FLAGS_benchmark_list_tests;
}  // namespace benchmark

namespace {

const std::vector<std::string>& OwnFlags() {
  static const auto* flags =
      new std::vector<std::string>{"counters",
                                   "pmubench_no_rdpmc",
                                   "pmubench_multiplex",
                                   "pmubench_list_events",
                                   "pmubench_profile",
                                   "pmubench_profile_callchain",
                                   "pmubench_profile_out",
                                   "pmubench_simulate",
                                   "pmubench_simulate_iterations",
                                   "pmubench_layout_check",
                                   "pmubench_simulate_i1",
                                   "pmubench_simulate_d1",
                                   "pmubench_simulate_ll",
                                   "pmubench_allocations",
                                   "pmubench_shard",
                                   "pmubench_shard_costs",
                                   "pmubench_jobs"};
  return *flags;
}

// The --pmubench_simulate* flags, checked; nullopt without the flag (a
// size or geometry without it is an error: it would do nothing).
absl::StatusOr<std::optional<pmubench::internal::SimulationOptions>>
SimulationFlags() {
  namespace pi = pmubench::internal;
  const std::string mode = absl::GetFlag(FLAGS_pmubench_simulate);
  pi::SimulationOptions options;
  options.iterations = absl::GetFlag(FLAGS_pmubench_simulate_iterations);
  options.i1 = absl::GetFlag(FLAGS_pmubench_simulate_i1);
  options.d1 = absl::GetFlag(FLAGS_pmubench_simulate_d1);
  options.ll = absl::GetFlag(FLAGS_pmubench_simulate_ll);
  options.layout_check = absl::GetFlag(FLAGS_pmubench_layout_check);
  const bool tuned = options.iterations != 0 || options.layout_check ||
                     options.i1 != pi::kDefaultI1 ||
                     options.d1 != pi::kDefaultD1 ||
                     options.ll != pi::kDefaultLL;
  if (mode.empty()) {
    if (!tuned) return std::nullopt;
    return absl::InvalidArgumentError(
        "--pmubench_simulate_iterations, --pmubench_layout_check and "
        "--pmubench_simulate_i1/d1/ll "
        "take effect with --pmubench_simulate (instructions or cache)");
  }
  absl::StatusOr<pi::SimulationMode> parsed = pi::ParseSimulationMode(mode);
  if (!parsed.ok()) return parsed.status();
  options.mode = *parsed;
  if (options.iterations < 0 || options.iterations > 1000000000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--pmubench_simulate_iterations=", options.iterations,
        ": give a whole number from 1 to 1000000000 (0: the default, ",
        pi::kDefaultSimulatedIterations, ")"));
  }
  for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{
                                        "pmubench_simulate_i1", options.i1},
                                    {"pmubench_simulate_d1", options.d1},
                                    {"pmubench_simulate_ll", options.ll}}) {
    if (absl::Status s = pi::CheckCacheGeometry(flag, value); !s.ok()) return s;
  }
  return options;
}

// --pmubench_multiplex where it cannot take effect: under callgrind (no PMU
// groups are opened) or with --counters=none (nothing is counted).
absl::Status CheckMultiplexFlag(bool simulating) {
  if (!absl::GetFlag(FLAGS_pmubench_multiplex)) return absl::OkStatus();
  if (simulating) {
    return absl::InvalidArgumentError(
        "--pmubench_multiplex rotates the PMU's counter groups, and under "
        "callgrind (--pmubench_simulate) no PMU counts: every simulated event "
        "is counted in full; drop --pmubench_multiplex");
  }
  if (absl::GetFlag(FLAGS_counters) == "none") {
    return absl::InvalidArgumentError(
        "--pmubench_multiplex with --counters=none: nothing is counted, so "
        "nothing is multiplexed; drop one of them");
  }
  return absl::OkStatus();
}

int BadInput(std::string_view program, absl::string_view message) {
  std::cerr << program << ": error: " << message << "\n";
  return 2;
}

// Heap allocations are counted when the flag says on and the program's
// allocator is pmubench's; when it is not, that is said once, and the
// fields are left out rather than written as zero.
void StartAllocationCounting(bool on) {
  if (pmubench::internal::MemoryManagerRegistered()) {
    std::cerr << pmubench::internal::kMemoryManagerNotice << "\n";
  }
  if (!on) return;
  const pmubench::internal::AllocSupport support =
      pmubench::internal::ProbeAllocCounting();
  if (!support.countable) {
    std::cerr << "pmubench: heap allocations are not counted (the "
                 "allocs_per_iter, alloc_bytes_per_iter, frees_per_iter and "
                 "max_bytes_used fields are left out): "
              << support.reason << "\n";
  }
  pmubench::internal::SetAllocCounting(support.countable);
}

// As Google Benchmark decides for its own console reporter.
benchmark::ConsoleReporter::OutputOptions ConsoleOptions(int argc,
                                                         char** argv) {
  const std::string color =
      pmubench::FlagOrEnv(argc, argv, "benchmark_color").value_or("auto");
  const char* term = std::getenv("TERM");
  const bool use_color = color == "auto"
                             ? (::isatty(STDOUT_FILENO) && term != nullptr &&
                                std::string_view(term) != "dumb")
                             : pmubench::BenchmarkFlagIsTrue(color);
  const bool tabular = pmubench::BenchmarkFlagIsTrue(
      pmubench::FlagOrEnv(argc, argv, "benchmark_counters_tabular")
          .value_or("false"));
  int options = benchmark::ConsoleReporter::OO_None;
  if (use_color) options |= benchmark::ConsoleReporter::OO_Color;
  if (tabular) options |= benchmark::ConsoleReporter::OO_Tabular;
  return static_cast<benchmark::ConsoleReporter::OutputOptions>(options);
}

// --pmubench_list_events: every candidate tried on this thread, grouped as
// `perf list` groups them, what the machine refuses listed apart.
int ListEvents(std::string_view program) {
  absl::StatusOr<pmubench::perf::PmuRegistry> pmus =
      pmubench::perf::PmuRegistry::Load();
  if (!pmus.ok()) return BadInput(program, pmus.status().message());
  std::cout << pmubench::internal::FormatEventList(
      pmubench::internal::ProbeEvents(pmubench::internal::ListCandidates(*pmus),
                                      *pmus));
  if (!pmus->HasHardwarePmu()) {
    std::cerr << "note: this machine exposes no hardware PMU; only software "
                 "events and non-core PMUs (e.g. msr/tsc/) can be counted\n";
  }
  return 0;
}

// The console reporter for --benchmark_format=console, strict JSON on
// stdout for json, Google Benchmark's own (nullptr) for csv.
std::unique_ptr<benchmark::BenchmarkReporter> DisplayReporter(
    std::string_view format,
    benchmark::ConsoleReporter::OutputOptions console_options,
    const pmubench::SessionInfo& session,
    const pmubench::ProfileStore* profiles) {
  if (format == "console") {
    return std::make_unique<pmubench::PmuConsoleReporter>(console_options,
                                                          session);
  }
  if (format != "json") return nullptr;
  return std::make_unique<pmubench::CapturedReporter>(
      std::make_unique<pmubench::ProfileJsonReporter>(
          std::make_unique<benchmark::JSONReporter>(), profiles),
      /*strict_json=*/true,
      [](std::string_view text) { std::cout << text << std::flush; });
}

// After the run: the --benchmark_out file written whole, or why not.
int CommitOutput(std::string_view program, pmubench::OutputFile& output_file) {
  absl::StatusOr<bool> written = output_file.Commit();
  if (!written.ok()) {
    std::cerr << program << ": error: " << written.status().message() << "\n";
    return 1;
  }
  if (output_file.active() && !*written) {
    std::cerr << program << ": note: --benchmark_out=" << output_file.path()
              << " was not written: no benchmark run was reported\n";
  }
  return 0;
}

// Under callgrind a profile is of instructions, each counted in the measured
// batch: no sampling event, no call chains.
absl::Status CheckSimulatedProfileFlags() {
  const std::string flag = absl::GetFlag(FLAGS_pmubench_profile);
  if (flag.empty() || flag == "instructions") {
    if (!absl::GetFlag(FLAGS_pmubench_profile_callchain) &&
        absl::GetFlag(FLAGS_pmubench_profile_out).empty()) {
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--pmubench_profile=", flag,
      " under callgrind: give "
      "--pmubench_profile=instructions (each function's exact share of the "
      "measured batch's instructions); sampling events, periods and call "
      "chains (--pmubench_profile_callchain, --pmubench_profile_out) need "
      "the kernel's sampling, which cannot run under callgrind"));
}

// --pmubench_profile and its flags, checked: the profile's configuration,
// or nullopt without the flag.
absl::StatusOr<std::optional<pmubench::ProfileConfig>> ProfileFlags(
    const char* argv0) {
  const std::string flag = absl::GetFlag(FLAGS_pmubench_profile);
  const std::string out = absl::GetFlag(FLAGS_pmubench_profile_out);
  const bool callchain = absl::GetFlag(FLAGS_pmubench_profile_callchain);
  if (flag.empty()) {
    if (!out.empty() || callchain) {
      return absl::InvalidArgumentError(
          "--pmubench_profile_out and --pmubench_profile_callchain need "
          "--pmubench_profile=EVENT[@PERIOD], e.g. cpu-clock@10000");
    }
    return std::nullopt;
  }
  if (!out.empty() && !callchain) {
    return absl::InvalidArgumentError(
        "--pmubench_profile_out writes folded call stacks: add "
        "--pmubench_profile_callchain");
  }
  absl::StatusOr<pmubench::perf::PmuRegistry> pmus =
      pmubench::perf::PmuRegistry::Load();
  if (!pmus.ok()) return pmus.status();
  absl::StatusOr<pmubench::ProfileConfig> config =
      pmubench::ParseProfileFlag(flag, *pmus);
  if (!config.ok()) return config.status();
  config->callchain = callchain;
  if (pmubench::internal::Callgrind::Running()) config->period = 0;
  pmubench::perf::InitializeSymbolizer(argv0);
  return *std::move(config);
}

// With a profile: the display reporter wrapped in the profiling pass
// (nullptr without one). csv has no display reporter of ours: no profile.
std::unique_ptr<pmubench::ProfilingReporter> MaybeProfile(
    const std::optional<pmubench::ProfileConfig>& config,
    std::string_view format,
    std::unique_ptr<benchmark::BenchmarkReporter>& display,
    pmubench::ProfileStore* profiles) {
  if (!config.has_value() || display == nullptr) return nullptr;
  return std::make_unique<pmubench::ProfilingReporter>(
      std::move(display), *config, format == "console", profiles);
}

// --pmubench_profile_out, checked before the first case runs (its directory
// exists and can be written) and held open for WriteFolded. A relative path
// is resolved as --benchmark_out's is.
absl::Status OpenFolded(pmubench::AtomicFile& file) {
  const std::string path = absl::GetFlag(FLAGS_pmubench_profile_out);
  if (path.empty()) return absl::OkStatus();
  const std::string resolved = pmubench::ResolveOutputPath(path);
  if (absl::Status s = file.Open(resolved); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pmubench_profile_out=", path,
                     resolved == path ? "" : " (in $BUILD_WORKING_DIRECTORY)",
                     ": ", s.message()));
  }
  return absl::OkStatus();
}

// After the run: the folded stacks of every profiled case, written whole to
// the file OpenFolded opened, or why not.
int WriteFolded(std::string_view program, benchmark::BenchmarkReporter* display,
                pmubench::AtomicFile& file) {
  if (file.path().empty()) return 0;
  auto* profiling = dynamic_cast<pmubench::ProfilingReporter*>(display);
  if (profiling == nullptr) {
    std::cerr << program << ": note: --pmubench_profile_out=" << file.path()
              << " was not written: --benchmark_format=csv takes no profile\n";
    return 0;
  }
  std::string text;
  for (const auto& [stack, n] : profiling->folded()) {
    absl::StrAppend(&text, stack, " ", n, "\n");
  }
  if (absl::Status s = file.Commit(text); !s.ok()) {
    std::cerr << program << ": error: --pmubench_profile_out: " << s.message()
              << "; no file was written\n";
    return 1;
  }
  return 0;
}

// After the run: every output file written that can be. One that fails
// (exit 1, named on stderr) does not keep the others from being written.
int WriteOutputs(std::string_view program, size_t ran,
                 benchmark::BenchmarkReporter* display,
                 pmubench::AtomicFile& folded,
                 pmubench::OutputFile& output_file) {
  if (ran == 0) {
    // Google Benchmark has said why (no match, or a bad --benchmark_filter);
    // empty output files would not be a run.
    std::string message = "no benchmark ran";
    if (output_file.active()) {
      absl::StrAppend(&message, "; --benchmark_out=", output_file.path(),
                      " was not written");
    }
    if (!folded.path().empty()) {
      absl::StrAppend(&message, "; --pmubench_profile_out=", folded.path(),
                      " was not written");
    }
    return BadInput(program, message);
  }
  const int folded_status = WriteFolded(program, display, folded);
  const int out_status = CommitOutput(program, output_file);
  return std::max(folded_status, out_status);
}

// Google Benchmark's argv as pmubench passes it on (a bare
// --pmubench_simulate spelled out, --benchmark_out taken over by
// `output_file`, under callgrind one batch per repetition), parsed by
// Google Benchmark and then for pmubench's own flags. `args` keeps the argv
// alive for the run.
absl::Status InitializeFlags(int argc, char** argv, bool under_callgrind,
                             pmubench::OutputFile& output_file,
                             std::vector<char*>& args) {
  args.assign(argv, argv + argc);
  static char kSimulateInstructions[] = "--pmubench_simulate=instructions";
  for (char*& arg : args) {
    if (std::string_view(arg) == "--pmubench_simulate") {
      arg = kSimulateInstructions;
    }
  }
  if (absl::Status s = output_file.Prepare(&args); !s.ok()) return s;
  // Under callgrind a batch has a fixed size (simulated_meter.h): one
  // batch per repetition is enough.
  static char kOneBatch[] = "--benchmark_min_time=0";
  if (under_callgrind &&
      !pmubench::FlagOrEnv(argc, argv, "benchmark_min_time").has_value()) {
    args.push_back(kOneBatch);
  }
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&args_count, args.data());
  return pmubench::ParseOwnFlags(args_count, args.data(), OwnFlags());
}

// How the cases are spread: this process's shard of the suite, its
// workers (--pmubench_jobs), and in a worker, the worker's files.
struct Spread {
  std::optional<pmubench::ShardRequest> shard;
  pmubench::JobsRequest jobs;
  std::optional<std::string> worker_files;
};

// The cases this process runs: a worker's (its display reporter made into
// `worker_display`), or this shard's. An exit status when the run ends
// here (bad worker files, an empty shard).
std::optional<int> SelectCases(
    std::string_view program, const Spread& spread,
    const std::optional<pmubench::ProfileConfig>& profile,
    pmubench::OutputFile& output_file,
    std::unique_ptr<benchmark::BenchmarkReporter>& worker_display) {
  if (spread.worker_files.has_value()) {
    absl::StatusOr<std::unique_ptr<benchmark::BenchmarkReporter>> writer =
        pmubench::PrepareWorker(*spread.worker_files, profile);
    if (!writer.ok()) return BadInput(program, writer.status().message());
    worker_display = *std::move(writer);
    return std::nullopt;
  }
  if (spread.shard.has_value()) {
    const pmubench::ShardCount picked =
        pmubench::ApplyShard(*spread.shard, std::cerr);
    if (picked.total > 0 && picked.selected == 0) {
      return pmubench::WriteEmptyRun(program, output_file);
    }
  }
  return std::nullopt;
}

// The benchmarks run, in this process or in workers; the exit status.
// Under callgrind a run in one process runs its cases in a forked worker
// too (JobsRequest::fork), each unit in a child forked from the same state,
// so that counts that follow addresses do not follow what ran before.
int RunAndWrite(std::string_view program, pmubench::JobsRequest jobs,
                std::optional<pmubench::ProfileConfig> profile,
                std::unique_ptr<benchmark::BenchmarkReporter> display,
                pmubench::AtomicFile& folded,
                pmubench::OutputFile& output_file) {
  jobs.fork = jobs.jobs <= 1 && pmubench::internal::Callgrind::Running() &&
              !benchmark::FLAGS_benchmark_list_tests;
  if (jobs.fork) jobs.profile = std::move(profile);
  if (jobs.jobs <= 1 && !jobs.fork) {
    const size_t ran = benchmark::RunSpecifiedBenchmarks(
        display.get(), output_file.reporter());
    benchmark::Shutdown();
    return WriteOutputs(program, ran, display.get(), folded, output_file);
  }
  // csv: Google Benchmark's own reporter, which RunSpecifiedBenchmarks
  // would have made (deprecated in its header, still what --benchmark_format
  // =csv prints).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  if (display == nullptr) display = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  const pmubench::JobsOutcome outcome = pmubench::RunInWorkers(
      jobs, display.get(), output_file.reporter(), std::cerr);
  benchmark::Shutdown();
  return std::max(
      outcome.status,
      WriteOutputs(program, outcome.ran, display.get(), folded, output_file));
}

// The cases run with counters planned and reported: every output path
// checked, the session prepared, its context added, the reporters made,
// the benchmarks run and the outputs written. The exit status.
int RunCases(std::string_view program, const char* argv0,
             const std::string& format,
             benchmark::ConsoleReporter::OutputOptions console_options,
             std::optional<pmubench::internal::SimulationOptions> simulate,
             bool allocations, const Spread& spread,
             pmubench::OutputFile& output_file,
             pmubench::ProfileStore& profiles) {
  // Every output path is checked before the first case runs.
  pmubench::AtomicFile folded;
  if (absl::Status s = OpenFolded(folded); !s.ok()) {
    return BadInput(program, s.message());
  }
  absl::StatusOr<std::optional<pmubench::ProfileConfig>> profile =
      ProfileFlags(argv0);
  if (!profile.ok()) return BadInput(program, profile.status().message());
  std::unique_ptr<benchmark::BenchmarkReporter> worker_display;
  if (std::optional<int> done =
          SelectCases(program, spread, *profile, output_file, worker_display)) {
    return *done;
  }
  pmubench::RunOptions options;
  options.simulate = std::move(simulate);
  options.counters = absl::GetFlag(FLAGS_counters);
  options.use_rdpmc = !absl::GetFlag(FLAGS_pmubench_no_rdpmc);
  options.multiplex = absl::GetFlag(FLAGS_pmubench_multiplex);
  absl::StatusOr<pmubench::SessionInfo> session = pmubench::Prepare(options);
  if (!session.ok()) return BadInput(program, session.status().message());
  StartAllocationCounting(allocations);
  // The console header prints the notice; other formats get it here, once.
  if (format != "console" && !session->notice.empty()) {
    std::cerr << session->notice << "\n";
  }
  for (const auto& [key, value] : session->context) {
    benchmark::AddCustomContext(key, value);
  }
  pmubench::ReportCaseBuild(std::cerr);
  if (worker_display != nullptr) {
    const size_t ran = pmubench::RunWorkerUnits(worker_display.get());
    benchmark::Shutdown();
    return WriteOutputs(program, ran, worker_display.get(), folded,
                        output_file);
  }
  std::unique_ptr<benchmark::BenchmarkReporter> display =
      DisplayReporter(format, console_options, *session, &profiles);
  if (std::unique_ptr<pmubench::ProfilingReporter> profiling =
          MaybeProfile(*profile, format, display, &profiles)) {
    display = std::move(profiling);
  }
  return RunAndWrite(program, spread.jobs, *std::move(profile),
                     std::move(display), folded, output_file);
}

}  // namespace

namespace {

// The flags whose meaning depends on whether callgrind counts.
absl::Status CheckModeFlags(bool simulated) {
  if (simulated) {
    if (absl::Status s = CheckSimulatedProfileFlags(); !s.ok()) return s;
  }
  return CheckMultiplexFlag(simulated);
}

// --pmubench_jobs: checked, defaulted, and 1 where workers cannot run (in a
// worker, when listing, with a sampled profile). `simulate_flag`: the run was
// asked for with --pmubench_simulate, so each worker starts its own valgrind; a
// binary started under callgrind by hand has no flag to pass its workers.
absl::StatusOr<int> JobsFlag(bool simulate_flag, bool under_callgrind) {
  namespace pi = pmubench::internal;
  const std::string text = absl::GetFlag(FLAGS_pmubench_jobs);
  absl::StatusOr<int> jobs =
      pi::ParseJobsFlag(text, simulate_flag, pi::CpusAllowed());
  if (!jobs.ok()) return jobs.status();
  std::string refused;
  if (!absl::GetFlag(FLAGS_pmubench_profile).empty() && !simulate_flag) {
    refused =
        " with a sampled --pmubench_profile: the profiling pass runs each "
        "case again in the process that reports it; give --pmubench_jobs=1, "
        "or --pmubench_simulate, whose profile is of the measured batch and "
        "travels with its worker's rows";
  } else if (under_callgrind && !simulate_flag) {
    refused =
        " under a valgrind started by hand: its workers would run "
        "natively; start the binary with --pmubench_simulate instead, which "
        "gives each worker its own valgrind";
  }
  if (*jobs > 1 && !refused.empty()) {
    if (text.empty()) return 1;
    return absl::InvalidArgumentError(
        absl::StrCat("--pmubench_jobs=", text, refused));
  }
  if (pi::WorkerFiles().has_value() || benchmark::FLAGS_benchmark_list_tests) {
    return 1;
  }
  return jobs;
}

// The shard, the workers and, in a worker, its files, from the flags.
absl::StatusOr<Spread> SpreadFlags(int argc, char** argv, bool simulate_flag,
                                   bool under_callgrind) {
  const bool simulating = simulate_flag || under_callgrind;
  Spread spread;
  const bool jobs_given = !absl::GetFlag(FLAGS_pmubench_jobs).empty();
  absl::StatusOr<std::optional<pmubench::ShardRequest>> shard =
      pmubench::ShardFlags(jobs_given);
  if (!shard.ok()) return shard.status();
  spread.shard = *std::move(shard);
  absl::StatusOr<int> jobs = JobsFlag(simulate_flag, under_callgrind);
  if (!jobs.ok()) return jobs.status();
  absl::StatusOr<std::optional<std::map<std::string, double>>> costs =
      pmubench::CostsFlag();
  if (!costs.ok()) return costs.status();
  spread.jobs.jobs = *jobs;
  spread.jobs.costs = *std::move(costs);
  spread.jobs.args.assign(argv + 1, argv + argc);
  spread.worker_files = pmubench::internal::WorkerFiles();
  if (*jobs > 1 && !simulating) {
    std::cerr << pmubench::internal::NativeJobsWarning(*jobs) << "\n";
  }
  return spread;
}

}  // namespace

int pmubench::RunMain(int argc, char** argv) {
  const std::string_view program = argc > 0 ? argv[0] : "pmubench";
  if (pmubench::WantsHelp(argc, argv)) {
    std::cout << pmubench::HelpText(program, OwnFlags());
    return 0;
  }
  if (absl::Status s = pmubench::ValidateBenchmarkFlags(argc, argv); !s.ok()) {
    return BadInput(program, s.message());
  }
  // Peek before benchmark::Initialize removes its flags from argv.
  const std::string format =
      pmubench::FlagOrEnv(argc, argv, "benchmark_format").value_or("console");
  const benchmark::ConsoleReporter::OutputOptions console_options =
      ConsoleOptions(argc, argv);

  const bool under_callgrind = pmubench::internal::Callgrind::Running();
  // Filled by the profiling pass; empty (JSON unchanged) without it.
  pmubench::ProfileStore profiles;
  pmubench::OutputFile output_file;
  output_file.set_json_wrapper(
      [&profiles](std::unique_ptr<benchmark::BenchmarkReporter> json) {
        return std::make_unique<pmubench::ProfileJsonReporter>(std::move(json),
                                                               &profiles);
      });
  std::vector<char*> args;
  if (absl::Status s =
          InitializeFlags(argc, argv, under_callgrind, output_file, args);
      !s.ok()) {
    return BadInput(program, s.message());
  }
  if (absl::GetFlag(FLAGS_pmubench_list_events)) return ListEvents(program);
  absl::StatusOr<std::optional<pmubench::internal::SimulationOptions>>
      simulate = SimulationFlags();
  if (!simulate.ok()) return BadInput(program, simulate.status().message());
  const absl::StatusOr<bool> allocations =
      pmubench::internal::ParseAllocationsFlag(
          absl::GetFlag(FLAGS_pmubench_allocations));
  if (!allocations.ok()) {
    return BadInput(program, allocations.status().message());
  }
  const bool simulating = simulate->has_value() || under_callgrind;
  if (absl::Status s = CheckModeFlags(simulating); !s.ok()) {
    return BadInput(program, s.message());
  }
  absl::StatusOr<Spread> spread =
      SpreadFlags(argc, argv, simulate->has_value(), under_callgrind);
  if (!spread.ok()) return BadInput(program, spread.status().message());
  if (simulate->has_value() && !under_callgrind) {
    absl::StatusOr<int> status = pmubench::internal::RunUnderCallgrind(
        **simulate, std::vector<std::string>(argv + 1, argv + argc));
    if (!status.ok()) return BadInput(program, status.status().message());
    return *status;
  }
  return RunCases(program, argv[0], format, console_options, *simulate,
                  *allocations, *spread, output_file, profiles);
}
