// Runs registered benchmarks in-process through Google Benchmark and keeps
// the reported runs, so tests read Run::counters directly (no JSON parsing).
#ifndef PMUBENCH_TESTS_RUNNER_RUN_CAPTURE_H_
#define PMUBENCH_TESTS_RUNNER_RUN_CAPTURE_H_

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace pmubench::testing {

using BenchRun = benchmark::BenchmarkReporter::Run;

// Every run (iterations and aggregates) of the benchmarks whose name matches
// `filter_regex` (--benchmark_filter syntax).
std::vector<BenchRun> RunMatching(const std::string& filter_regex);

// The run named `name` (Run::benchmark_name()), or nullptr.
const BenchRun* FindRun(const std::vector<BenchRun>& runs,
                        const std::string& name);

// counters[name] of `run`, or NaN when absent.
double CounterOf(const BenchRun& run, const std::string& name);

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_RUN_CAPTURE_H_
