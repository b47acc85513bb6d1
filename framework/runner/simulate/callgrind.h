// Talking to Valgrind's callgrind tool from inside the process it runs: the
// client requests of <valgrind/callgrind.h> (a few no-op instructions when
// the process runs natively) and the dump files they make.
//
// A counted region is
//   Callgrind::ToggleCollect();   // collection on (started with
//   ... code ...                  //   --collect-atstart=no: off at start)
//   Callgrind::ToggleCollect();   // off
//   absl::StatusOr<CallgrindDump> d = callgrind.Dump("label");  // and zero
// Callgrind's collection state is per thread. With --separate-threads=yes
// (which pmubench's own re-execution passes) a dump holds and zeroes the
// calling thread's costs only, in a file "<base>.<part>-<thread>"; without
// it, every thread's, in "<base>.<part>" (the Valgrind manual, "Callgrind
// Command-line Options": --separate-threads, --callgrind-out-file).
//
// NOTE: the requests do nothing outside callgrind (natively, or under
// another Valgrind tool): check UnderCallgrind() first.
#ifndef PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_CALLGRIND_H_
#define PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_CALLGRIND_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace pmubench::internal {

// One dump file, as callgrind 3.19 writes it (the Valgrind manual, "Callgrind
// Format Specification"): the header lines pmubench reads.
struct CallgrindDump {
  std::string creator;              // "callgrind-3.19.0"
  int64_t part = 0;                 // "part:": the dump's number in the run
  int64_t thread = 0;               // "thread:" (--separate-threads=yes), or 0
  std::string trigger;              // "desc: Trigger:", e.g. "Client
                                    // Request: pmubench-12-7"
  std::vector<std::string> events;  // "events:" line: Ir Dr Dw I1mr ...
  std::vector<uint64_t> totals;     // "summary:" (else "totals:"), one per
                                    // event; trailing zeros filled in
  // "desc: I1 cache: 32768 B, 64 B, 8-way associative" as "32768,8,64"
  // (size, associativity, line size: valgrind's --I1 syntax); empty without
  // cache simulation.
  std::string i1, d1, ll;

  // The first event's self cost (Ir: instructions) per function and source
  // line, from the dump's body: cost lines after a "calls=" line are a
  // callee's inclusive cost and are left out. Line 0: no line information.
  struct SelfCost {
    std::string function;
    std::string file;
    int line = 0;
    uint64_t cost = 0;
  };
  std::vector<SelfCost> self_costs;

  // The total of `event` ("Ir"), or -1 when the dump does not have it.
  int64_t Total(std::string_view event) const;
};

// Parses a dump's text. `path` names the file in errors.
absl::StatusOr<CallgrindDump> ParseCallgrindDump(std::string_view text,
                                                 std::string_view path);

class Callgrind {
 public:
  // True when this process runs under callgrind: a callgrind request
  // answered (RUNNING_ON_VALGRIND is 1 under every Valgrind tool; a
  // request no tool handles returns the default given). Zeroes callgrind's
  // costs as a side effect.
  static bool Running();

  // Flips the calling thread's collection state.
  static void ToggleCollect();
  // Zeroes the costs of every thread.
  static void ZeroStats();

  // `base` is callgrind's output file (--callgrind-out-file, default
  // "callgrind.out.%p" in the directory valgrind started in), "%p" left in:
  // a process forked under callgrind writes under its own pid.
  explicit Callgrind(std::string base) : base_(std::move(base)) {}

  // Dumps the costs since the last dump or zeroing (and zeroes them) under
  // `label`, then takes the dump (TakeDumps). An error names the file or
  // directory and what to do.
  absl::StatusOr<CallgrindDump> Dump(const std::string& label);

  // Reads and deletes every dump made under `label` (the calling thread's,
  // with --separate-threads=yes), in the order callgrind made them. Only
  // files named as callgrind names a request's dumps ("<base>.<part>",
  // "<base>.<part>-<thread>") are opened, only regular files of this user
  // with one link are read (never through a link, never a FIFO or device),
  // at most 256 MiB each, and only those whose header names `label` are
  // read whole and deleted: anything else in the directory is left alone.
  absl::StatusOr<std::vector<CallgrindDump>> TakeDumps(
      const std::string& label) const;

  // The output file of this process: "%p" is its pid now.
  std::string base() const;

 private:
  std::string base_;
};

// OK when the directory of the dump base `base` belongs to this user and
// neither its group nor others can write it. Anywhere else another user
// could plant a FIFO, a link or a file of a dump's name, which valgrind
// writes through and pmubench would read: FailedPrecondition says where and
// what to do (a private directory, or --pmubench_simulate).
absl::Status CheckDumpDirectory(const std::string& base);

// The dump base of a process callgrind runs: $PMUBENCH_CALLGRIND_OUT when
// set (pmubench's own re-execution sets it), else "callgrind.out.%p" in
// the current directory (callgrind's default). "%p", the process id, is
// left for Callgrind::base() to fill.
std::string CallgrindOutputBase();

}  // namespace pmubench::internal

#endif  // PMUBENCH_FRAMEWORK_RUNNER_SIMULATE_CALLGRIND_H_
