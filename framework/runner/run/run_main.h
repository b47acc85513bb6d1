// pmubench::RunMain: the whole of pmubench's main() (Google Benchmark's flags
// plus --counters, the counter session checked before any benchmark runs,
// the pmubench console reporter, the --benchmark_out file). PMUBENCH_MAIN()
// and the pmubench_main library's main() both call it.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_RUN_MAIN_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_RUN_MAIN_H_

namespace pmubench {

// Returns the process exit status:
//   0  the benchmarks ran (or were listed: --benchmark_list_tests) and every
//      output file was written; a case that failed (SkipWithError, its own
//      or pmubench's) is marked failed in the output and does not change
//      this. Also --help and --pmubench_list_events.
//   1  the benchmarks ran, but an output file (--benchmark_out,
//      --pmubench_profile_out) could not be written whole at the end; it is
//      named on stderr, not left behind, and the other one is still written.
//   2  bad input, before any case runs: a bad flag or flag value, a bad or
//      uncountable event (the counter session is checked first), an output
//      path that cannot be created, the PMU list unreadable, valgrind missing
//      for --pmubench_simulate; and when no benchmark ran (the filter
//      matched nothing), no file then being written. Stderr says why.
//   With --pmubench_simulate, outside callgrind: the exit status of this
//   binary run again under callgrind, as a shell reports it: its own code
//   (the above, or valgrind's), 128 + N when signal N ended it, 127 when it
//   could not be started or waited for.
int RunMain(int argc, char** argv);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_RUN_MAIN_H_
