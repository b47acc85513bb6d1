// --pmubench_simulate: counting with Valgrind's callgrind instead of a PMU,
// on any Linux machine. This file holds the options and the re-execution:
// a binary given the flag outside callgrind runs itself again as
//
//   valgrind -q --tool=callgrind --collect-atstart=no --separate-threads=yes
//            --callgrind-out-file=PRIVATE_DIR/callgrind.out --vgdb=no
//            --fair-sched=no
//            [--cache-sim=yes --branch-sim=yes --I1=.. --D1=.. --LL=..]
//            /resolved/path/of/the/binary ARGS...
//
// and waits for it; inside callgrind the same flags select the simulated
// counting (simulation_session.h). Callgrind's options are in the Valgrind
// manual, "Callgrind Command-line Options" and "Cachegrind Command-line
// Options" (--I1/--D1/--LL take SIZE,ASSOCIATIVITY,LINE_SIZE in bytes).
#ifndef PMUBENCH_FRAMEWORK_RUNNER_CLI_SIMULATION_OPTIONS_H_
#define PMUBENCH_FRAMEWORK_RUNNER_CLI_SIMULATION_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace pmubench::internal {

enum class SimulationMode {
  kInstructions,  // instructions only: the fastest (about 13-57x native)
  kCache,         // plus simulated caches and branch predictor
};

// The cache geometry pinned by default, so counts do not follow the
// machine callgrind runs on (left to itself it reads the host's caches).
inline constexpr char kDefaultI1[] = "32768,8,64";
inline constexpr char kDefaultD1[] = "32768,8,64";
inline constexpr char kDefaultLL[] = "8388608,16,64";
// Steps of the smaller measured segment (simulated_meter.h): instruction
// counts are exact at any size; simulated misses are averaged over them
// (a larger n smooths them, at n times a step's cost). 10 keeps pmubench's
// own suite at about 1.5 minutes, 5 with cache simulation, on 2 cores.
inline constexpr int64_t kDefaultSimulatedIterations = 10;

struct SimulationOptions {
  SimulationMode mode = SimulationMode::kInstructions;
  std::string i1 = kDefaultI1;
  std::string d1 = kDefaultD1;
  std::string ll = kDefaultLL;
  int64_t iterations = 0;  // 0: kDefaultSimulatedIterations
  // --pmubench_layout_check: each batch run again at shifted addresses
  // (measure/layout_check.h).
  bool layout_check = false;
};

// "instructions" or "cache" ("true", from a bare --pmubench_simulate, is
// instructions). Errors name the flag and the valid values.
absl::StatusOr<SimulationMode> ParseSimulationMode(std::string_view value);

// "SIZE,ASSOCIATIVITY,LINE_SIZE" checked as valgrind checks --I1/--D1/--LL
// (cachegrind's cg_arch.c, and callgrind's line minimum): ints, SIZE a
// multiple of ASSOCIATIVITY * LINE_SIZE with a power of two number of sets,
// LINE_SIZE a power of two of at least 16 and of the largest register (32
// bytes on x86-64 with AVX), SIZE above LINE_SIZE. `flag` names the flag in
// the error.
absl::Status CheckCacheGeometry(std::string_view flag, std::string_view value);

// "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64" (the JSON context value),
// or "none" for instructions only.
std::string GeometryText(const SimulationOptions& options);

// The valgrind command line that re-runs `exe args` under callgrind with
// its dumps under `out_base`.
std::vector<std::string> CallgrindCommand(const SimulationOptions& options,
                                          const std::string& valgrind,
                                          const std::string& out_base,
                                          const std::string& exe,
                                          const std::vector<std::string>& args);

// The first executable `program` in $PATH.
std::optional<std::string> FindOnPath(std::string_view program);

// Runs this binary again under callgrind with `args` (argv[1..]), its dumps
// in a private directory removed afterwards, SIGINT/SIGTERM/SIGHUP passed
// on to it; returns its exit status (128 + the signal if a signal ended
// it). The directory is mkdtemp(3)'s "pmubench-callgrind.<pid>.XXXXXX"
// under $TMPDIR (else /tmp), flock(2)ed while this process lives; first
// the directories of killed runs are removed there when provably stale
// (this user's, the pid gone, the lock free). NotFound when valgrind is not
// installed (the message names the Debian package); ResourceExhausted when
// $TMPDIR's file system has less than 1 MiB free.
absl::StatusOr<int> RunUnderCallgrind(const SimulationOptions& options,
                                      const std::vector<std::string>& args);

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_CLI_SIMULATION_OPTIONS_H_
