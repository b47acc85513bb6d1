// pmubench::RunMain: the whole of pmubench's main() (Google Benchmark's flags
// plus --counters, the counter session checked before any benchmark runs,
// the pmubench console reporter, the --benchmark_out file). PMUBENCH_MAIN()
// and the pmubench_main library's main() both call it.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_RUN_MAIN_H_
#define PMUBENCH_FRAMEWORK_RUNNER_RUN_MAIN_H_

namespace pmubench {

// Returns the process exit status: 0 after a run, 2 on bad input.
int RunMain(int argc, char** argv);

}  // namespace pmubench

#endif  // PMUBENCH_FRAMEWORK_RUNNER_RUN_MAIN_H_
