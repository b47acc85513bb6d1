"""scripts/pmu-vm: pmubench's arm64 build on a real kernel with an emulated
PMUv3 (QEMU TCG, -icount shift=0: exact, repeatable instruction counts).

  scripts/pmu-vm build                       cross-build every CMake target into build/arm64
  scripts/pmu-vm run [--out DIR] -- CMD ...  run CMD (a path from the repo root) in the guest
  scripts/pmu-vm test                        build, then run the C++ tests in the guest
  scripts/pmu-vm simulate-test [--all]       build, then the callgrind backend's end-to-end
                                             tests under valgrind in the guest (slow)

The guest runs CMD as root in the repository's directory, with
kernel.perf_user_access=1, kernel.perf_event_paranoid=1, a tmpfs /tmp and
Debian's arm64 valgrind (its callgrind tool only) on PATH, for
--pmubench_simulate.
Files CMD writes under $PMU_VM_OUT come back to DIR. `run` exits with CMD's
status; 125 means the rig itself failed (the message says why).
Installs what it needs from Debian on first use (apt-get; root or sudo).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from dev.test_summary import Counts

from . import console, packages, test_results, vm

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.path.join(REPO, "build", "arm64")
CACHE = os.path.join(REPO, "build", "pmu-vm")
TOOLCHAIN = os.path.join(REPO, "scripts", "cmake", "aarch64-linux-gnu.cmake")
RIG_FAILED = 125

# The GoogleTest binaries `test` runs, relative to build/arm64.
# The exact runner tests first, on a guest nothing else has run on yet: after
# the other binaries ran, the PauseTiming case (a syscall in every pause pair)
# read 5,743 to 20,847 instructions too many over 20,000 iterations, and the
# same binary passed on a fresh guest and after `sleep 20` (cause not found;
# the counts outside syscall-heavy windows stayed exact). It was seen once on
# a fresh guest too (6,104), so the pausing cases run three repetitions and
# the best must be exact (tests/runner/hardware_test.cc).
TEST_BINARIES = ("tests/runner/runner_hardware_tests", "tests/perf/perf_tests",
                 "tests/runner/runner_tests", "tests/runner/runner_e2e_tests")
BENCHES = "benches/all"
# The callgrind backend's end-to-end tests (`simulate-test`): by default the
# determinism test only, about 7 minutes of TCG (too long for `test`).
SIMULATE_TESTS = "tests/runner/runner_simulate_e2e_tests"
SIMULATE_TARGETS = ("runner_simulate_e2e_tests", "runner_simulate_cases",
                    "runner_simulate_cases_more")
DETERMINISM_TEST = "SimulateTest.HeavyCasesCountTheSameAloneAfterOthersAndFromAnyPath"
# The accuracy kernels under --pmubench_simulate (callgrind in the guest):
# the same cases, counted by valgrind, must read expected_instructions
# exactly (fixed iterations; the loop entry cancels between the dumps).
SIMULATED_COUNTER = "callgrind/instructions/"
# The CMake targets `test` runs (runner_e2e_tests runs runner_e2e_cases): the
# arm64 build of the others (the callgrind, console and conversion tests,
# which run on the host) would only cost CI time.
TEST_TARGETS = ("runner_hardware_tests", "perf_tests", "runner_tests",
                "runner_e2e_tests", "runner_e2e_cases", "benches_all")


def build(jobs: int, targets: tuple[str, ...] = ()) -> int:
    """Cross-builds `targets` (every target when empty) into build/arm64."""
    packages.ensure_build_tools(packages.Apt())
    chosen = ["--target", *targets] if targets else []
    # Line tables only (-g1): what the tests in the guest read, for less
    # compile time than full debug info (scripts/test builds the same way).
    for cmd in (["cmake", "-S", REPO, "-B", BUILD_DIR, f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}",
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"],
                ["cmake", "--build", BUILD_DIR, "-j", str(jobs), *chosen]):
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        rc = os.spawnvp(os.P_WAIT, cmd[0], cmd)
        if rc != 0:
            print(f"pmu-vm: {cmd[0]} failed (exit {rc})", file=sys.stderr)
            return rc or 1
    return 0


def guest_programs(extra: list[str]) -> list[str]:
    """Every executable of build/arm64 (the tests find each other by their
    build paths) plus extra files, as absolute host paths."""
    found = set()
    for root, dirs, files in os.walk(BUILD_DIR):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        for name in files:
            path = os.path.join(root, name)
            if os.access(path, os.X_OK) and vm.elf_closure.is_elf(path):
                found.add(path)
    found.update(os.path.abspath(os.path.join(REPO, e)) for e in extra)
    return sorted(found)


def boot_and_run(argv: list[str], extra_files: list[str], out_dir: str | None,
                 timeout: float, show) -> vm.Outcome:
    """Boots a guest that runs argv in the repository directory."""
    apt = packages.Apt()
    packages.ensure_vm_tools(apt)
    kernel = packages.ensure_kernel(apt, os.path.join(CACHE, "kernel"))
    busybox = packages.ensure_busybox(apt, os.path.join(CACHE, "busybox"))
    valgrind = packages.ensure_valgrind(apt, os.path.join(CACHE, "valgrind"))
    nonce = vm.new_nonce()
    init = vm.init_script(nonce, REPO, argv, out_dir is not None)
    initrd = vm.build_initramfs(init, busybox, guest_programs(extra_files),
                                os.path.join(CACHE, "lean"), valgrind)
    with tempfile.NamedTemporaryFile(prefix="pmu-vm-initrd-", suffix=".gz") as f:
        f.write(initrd)
        f.flush()
        outcome = vm.boot(kernel, f.name, console.Demux(nonce), timeout, show)
    if out_dir is not None and outcome.demux.archive_complete:
        console.extract_archive(console.decode_archive(outcome.demux.archive_lines), out_dir)
    return outcome


def rig_failure(outcome: vm.Outcome, timeout: float) -> str | None:
    """Why the guest did not report CMD's exit status, or None."""
    d = outcome.demux
    if outcome.timed_out:
        return (f"the guest did not finish within {timeout:.0f} s and was killed "
                "(raise --timeout or PMU_VM_TIMEOUT if the command is just slow)")
    if d.setup_failure:
        return f"the guest's /init failed at: {d.setup_failure}"
    if not d.started:
        return "the guest powered off before running the command (kernel panic or bad initramfs?)"
    if d.exit_status is None:
        return "the guest powered off without reporting the command's exit status"
    return None


def report_rig_failure(why: str, outcome: vm.Outcome) -> None:
    if outcome.console_tail:
        print("pmu-vm: last console lines:", file=sys.stderr)
        for line in outcome.console_tail[-25:]:
            print("  | " + line, file=sys.stderr)
    else:
        print("pmu-vm: the guest printed nothing on its console", file=sys.stderr)
    print(f"pmu-vm: {why}", file=sys.stderr)


def run(command: list[str], out_dir: str | None, timeout: float) -> int:
    if not command:
        print("pmu-vm run: name a command after --, e.g. "
              "`scripts/pmu-vm run -- build/arm64/benches/all`", file=sys.stderr)
        return 2
    extra = []
    host_path = os.path.join(REPO, command[0])
    if os.path.isfile(host_path):
        extra.append(command[0])
    elif "/" in command[0]:
        hint = " (run `scripts/pmu-vm build` first)" if command[0].startswith("build/arm64") else ""
        print(f"pmu-vm run: {command[0]} does not exist under {REPO}{hint}", file=sys.stderr)
        return 2
    outcome = boot_and_run(command, extra, out_dir, timeout, _show_command_output)
    why = rig_failure(outcome, timeout)
    if why:
        report_rig_failure(why, outcome)
        return RIG_FAILED
    if out_dir is not None and not outcome.demux.archive_complete:
        print("pmu-vm: the guest's output files did not come back", file=sys.stderr)
        return RIG_FAILED
    return outcome.exit_status


def _show_command_output(stream: str, text: str) -> None:
    """The command's stdout and stderr, and kernel messages printed while it
    ran; boot and shutdown messages only when the rig fails."""
    if stream != console.BOOT:
        vm.print_stream(stream, text)




def test_script(binaries: list[str], accuracy_json: str, simulated_json: str) -> str:
    """The guest's shell script for `test`: each binary framed for
    test_results.split_sections, then the accuracy kernels, counted by the
    PMU and then by callgrind (--pmubench_simulate)."""
    lines = []
    for b in binaries:
        lines.append(f"echo '{test_results.BEGIN} {b}'; {b}; "
                     f"echo \"{test_results.END} {b} $?\"")
    bench = os.path.join("build", "arm64", BENCHES)
    for name, flags, out in (
            ("accuracy", "--counters=instructions --benchmark_min_time=0.01", accuracy_json),
            ("simulated-accuracy", "--pmubench_simulate", simulated_json)):
        lines.append(f"echo '{test_results.BEGIN} {name}'; {bench} "
                     f"--benchmark_filter=BM_Accuracy {flags} "
                     f"--benchmark_out=\"$PMU_VM_OUT/{out}\" --benchmark_out_format=json; "
                     f"echo \"{test_results.END} {name} $?\"")
    return "\n".join(lines) + "\n"


def test(timeout: float, jobs: int, do_build: bool) -> int:
    start = time.monotonic()
    if do_build and build(jobs, TEST_TARGETS) != 0:
        print("pmu-vm test: the arm64 build failed\n0 passed, 1 failed, 0 skipped")
        return 1
    binaries = [os.path.join("build", "arm64", b) for b in TEST_BINARIES]
    missing = [b for b in binaries if not os.path.exists(os.path.join(REPO, b))]
    if missing:
        print(f"pmu-vm test: missing {', '.join(missing)} (run `scripts/pmu-vm build`)",
              file=sys.stderr)
        binaries = [b for b in binaries if b not in missing]
    with tempfile.TemporaryDirectory(prefix="pmu-vm-test-") as out_dir:
        outcome, stdout, rig_failed = boot_collecting(
            ["sh", "-c", test_script(binaries, "accuracy.json", "simulated_accuracy.json")],
            out_dir, timeout)
        totals = Counts(failed=len(missing) + rig_failed)
        print("\n=== pmu-vm test ===")
        for section in test_results.split_sections(stdout):
            if section.name == "accuracy":
                counts = _accuracy_counts(section, os.path.join(out_dir, "accuracy.json"))
            elif section.name == "simulated-accuracy":
                counts = _accuracy_counts(
                    section, os.path.join(out_dir, "simulated_accuracy.json"),
                    SIMULATED_COUNTER, slack=0)
            else:
                counts = test_results.parse_gtest(section.output, section.exit_status)
            totals.add(counts)
            print(f"{section.name}: {counts.passed} passed, {counts.failed} failed, "
                  f"{counts.skipped} skipped")
    return finish("test", outcome, start, totals)


def simulate_test(timeout: float, jobs: int, do_build: bool, every_test: bool) -> int:
    """The callgrind backend's end-to-end tests under valgrind in the guest:
    the determinism test, or with every_test the whole binary."""
    start = time.monotonic()
    if do_build and build(jobs, SIMULATE_TARGETS) != 0:
        print("pmu-vm simulate-test: the arm64 build failed\n0 passed, 1 failed, 0 skipped")
        return 1
    binary = os.path.join("build", "arm64", SIMULATE_TESTS)
    if not os.path.exists(os.path.join(REPO, binary)):
        print(f"pmu-vm simulate-test: missing {binary} (run `scripts/pmu-vm build`)",
              file=sys.stderr)
        return 2
    argv = [binary] + ([] if every_test else [f"--gtest_filter={DETERMINISM_TEST}"])
    outcome, stdout, rig_failed = boot_collecting(argv, None, timeout)
    counts = test_results.parse_gtest(stdout, outcome.exit_status)
    counts.failed += rig_failed
    return finish("simulate-test", outcome, start, counts)


def boot_collecting(argv: list[str], out_dir: str | None,
                    timeout: float) -> tuple[vm.Outcome, str, int]:
    """Runs argv in the guest, showing its output as it comes: the outcome,
    the command's stdout, and 1 when the rig failed (said on stderr), else 0."""
    stdout_lines: list[str] = []

    def show(stream: str, text: str) -> None:
        if stream == console.STDOUT:
            stdout_lines.append(text)
        _show_command_output(stream, text)

    outcome = boot_and_run(argv, [], out_dir, timeout, show)
    why = rig_failure(outcome, timeout)
    if why:
        report_rig_failure(why, outcome)
    return outcome, "\n".join(stdout_lines), 1 if why else 0


def finish(verb: str, outcome: vm.Outcome, start: float, counts: Counts) -> int:
    """The closing lines of `test` and `simulate-test`, and their exit
    status: 0 when something passed and nothing failed."""
    print(f"pmu-vm {verb}: guest ran {outcome.seconds:.0f} s, "
          f"{time.monotonic() - start:.0f} s in all")
    print(f"{counts.passed} passed, {counts.failed} failed, {counts.skipped} skipped")
    return 0 if counts.failed == 0 and counts.passed > 0 else 1


def _accuracy_counts(section: test_results.Section, json_path: str,
                     counter: str = "instructions",
                     slack: int = test_results.LOOP_ENTRY_SLACK) -> Counts:
    if section.exit_status != 0 or not os.path.exists(json_path):
        print(f"{section.name}: {BENCHES} exited {section.exit_status} without a JSON report")
        return Counts(failed=1)
    check = test_results.check_accuracy(test_results.load_report(json_path), counter, slack,
                                        expected_key="expected_instructions")
    for line in check.lines:
        print("  " + line)
    return check.counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/pmu-vm", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True)
    p_build = sub.add_parser("build", help="cross-build every CMake target into build/arm64")
    p_run = sub.add_parser("run", help="run a command in the guest")
    p_run.add_argument("--out", metavar="DIR",
                       help="copy the files the command writes under $PMU_VM_OUT to DIR")
    p_test = sub.add_parser("test", help="build the targets it runs, then run the C++ tests "
                            "in the guest")
    p_sim = sub.add_parser("simulate-test", help="build the callgrind backend's end-to-end "
                           "tests, then run the determinism test (or all) under valgrind "
                           "in the guest (about 7 minutes)")
    p_sim.add_argument("--all", action="store_true",
                       help="every test of runner_simulate_e2e_tests, not only "
                            + DETERMINISM_TEST)
    for p in (p_test, p_sim):
        p.add_argument("--no-build", action="store_true",
                       help="use build/arm64 as it is")
    for p, default in ((p_run, 900), (p_test, 1800), (p_sim, 3600)):
        p.add_argument("--timeout", type=float, metavar="SECONDS",
                       default=float(os.environ.get("PMU_VM_TIMEOUT", default)),
                       help=f"kill the guest after this long (default {default}, "
                            "or $PMU_VM_TIMEOUT)")
    for p in (p_build, p_test, p_sim):
        p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    p_run.add_argument("command", nargs=argparse.REMAINDER,
                       help="-- CMD [ARGS...]: CMD is a path from the repository root")
    args = parser.parse_args(argv)
    try:
        if args.verb == "build":
            return build(args.jobs)
        if args.verb == "run":
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            return run(command, args.out, args.timeout)
        if args.verb == "simulate-test":
            return simulate_test(args.timeout, args.jobs, not args.no_build, args.all)
        return test(args.timeout, args.jobs, not args.no_build)
    except (packages.SetupError, FileNotFoundError, subprocess.CalledProcessError) as e:
        print(f"pmu-vm: {e}", file=sys.stderr)
        return RIG_FAILED
