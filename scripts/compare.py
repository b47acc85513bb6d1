#!/usr/bin/python3
"""Compare two pmubench (Google Benchmark JSON) runs and fail on regressions.

    python3 scripts/compare.py BASELINE.json CONTENDER.json \
        [--threshold METRIC=PCT ...] [--format text|markdown|json]
        [--full-output FULL.md]

--format markdown is a pull-request comment under GitHub's 65,536
characters whatever the suite; --full-output writes all of it beside.

Exit status: 0 no regression beyond its threshold, 1 at least one,
2 bad input or usage, 4 inconclusive: nothing in the comparison could
catch a slowdown (no instruction-class count that is non-zero, and no time
with enough repetitions or rounds for the test); --allow-inconclusive
makes that 0, and every format's headline still says INCONCLUSIVE and why.
The logic lives in scripts/pmubench/ (verdicts/, render/).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Iterable

from pmubench.base import launch

launch.ensure("compare.py", launch.COMPARE_NEEDS)

from pmubench.base import atomic, front, pipe_size  # noqa: E402
from pmubench.base.exits import EXIT_BAD_INPUT  # noqa: E402
from pmubench.render import compare_json, compare_markdown, compare_text, formatting  # noqa: E402
from pmubench.runs import benchjson  # noqa: E402
from pmubench.verdicts import comparison, thresholds  # noqa: E402

_EPILOG = """\
how a row is judged:
  Rows are (metric, benchmark) pairs both files measured; "change" is
  contender median / baseline median - 1. With repetitions on both sides
  (--benchmark_repetitions=N, N >= 4 for alpha 0.05; 5 or more recommended)
  a row regresses when the change is beyond the threshold in the worse
  direction AND the two-sided Mann-Whitney U p < alpha. With 2 or 3
  repetitions p < 0.05 is unreachable (3 vs 3: p >= 0.1), so the verdict
  asks instead for every contender repetition to be beyond every baseline
  one ("few reps"). A file merged from K runs (ci_compare.sh --rounds K)
  is tested per run for times, cycles and cache misses: each run's median
  is one value, and with fewer than 4 runs a side those are not gated
  ("few rounds"); only deterministic metrics are gated in the few reps,
  few rounds and threshold only modes. Without repetitions on a side (one run, or a file
  written with --benchmark_report_aggregates_only=true, whose median
  aggregate is used, else the mean) the change is judged against the
  threshold alone ("threshold only"). CI is a distribution-free
  Hodges-Lehmann interval for the change (exact, no resampling).
  Times and counts are worse higher; IPC (IPC:u, ...) and *_per_second
  worse lower. Modifiers and PMU prefixes never change a metric's class.
  Counts simulated by pmubench's callgrind backend ("callgrind/.../")
  are exact run to run: gated in every mode, one run a side included,
  at their class's threshold, except the instruction-class counts
  (instructions, branches, loads, stores): {simulated_pct:g}%, the "simulated"
  line below. The times of such a file are valgrind's: with one run a
  side (ci_compare.sh --simulate) they are not gated, and the markdown
  lists them apart, after the counts. Two files of different backends,
  valgrind versions or cache geometries are refused (exit 2).

inconclusive (exit 4):
  A row can catch a slowdown when it is gated and either counts
  instructions (any deterministic counter but declared expected_*
  values) with a non-zero value, or is a time (cycles, misses, ...)
  judged by the test ("u-test" mode). When no row of the comparison can,
  it exits 4, and every format's headline says INCONCLUSIVE with the
  cause found in the files (no instruction-class counter in either file;
  times need 4 rounds a side for the test and these files have 2; every
  threshold is off); changed rows nothing gated are listed in sight.
  --allow-inconclusive exits 0 instead; the headline stays. When only
  some benchmarks are blind, the result stands and a WARNING names them.

default thresholds (class, threshold, metrics):
{table}
  A change smaller than an absolute floor (0.01 per iteration for counts,
  0.001 for IPC and *-ratio) never counts. Override with
  --threshold METRIC=PCT: an exact metric name, a pattern ('*-misses=10'),
  'time' (every metric of the time class) or 'default'; PCT 'off' shows
  a metric without gating it. An exact name beats a pattern; the later of
  two equal rules wins. A rule or --metrics pattern that names no metric
  of either file is refused (exit 2, naming the near names). A rule with
  a percentage whose rows the files cannot gate (times with 2 rounds a
  side, say) is refused too, saying what the files would need (4 rounds a
  side: ci_compare.sh --rounds 4): an explicit threshold is honoured or
  refused, never silently left "not gated".

different machines:
  When the files' host_name, num_cpus, caches or pmubench_pmus differ,
  every format says so at the top; --strict refuses them (exit 2).

exit status: 0 no regression beyond its threshold, 1 at least one
  (with --strict also a benchmark missing or failed in the contender),
  2 bad input or usage (with --strict also files from different
  machines), 4 inconclusive: nothing here could catch a slowdown (0 with
  --allow-inconclusive).
"""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="compare.py",
        description="Compare a baseline and a contender pmubench/Google "
                    "Benchmark JSON file,\nmetric by metric, and exit 1 on a "
                    "regression beyond its threshold.",
        epilog=_EPILOG.format(table=thresholds.defaults_table(),
                              simulated_pct=thresholds.SIMULATED_EXACT_PCT),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", metavar="BASELINE.json")
    parser.add_argument("contender", metavar="CONTENDER.json")
    parser.add_argument("--threshold", action="append", default=[],
                        metavar="METRIC=PCT",
                        help="threshold in percent for a metric (repeatable)")
    parser.add_argument("--format", choices=("text", "markdown", "json"),
                        default="text", help="output format (default text)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level of the U test and 1 - the "
                             "CI level (default 0.05)")
    parser.add_argument("--metrics", action="append", metavar="PATTERN",
                        help="compare only metrics matching PATTERN "
                             "('instructions', '*-misses', 'time'); repeatable")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="write the report to FILE (atomically) instead "
                             "of standard output")
    parser.add_argument("--full-output", metavar="FILE",
                        help="with --format markdown: also write the full "
                             "report (every row, every attribution) to FILE; "
                             "the report itself is then a pull-request "
                             "comment that fits GitHub's 65,536 characters "
                             "and names FILE for what it leaves out")
    parser.add_argument("--color", choices=("auto", "always", "never"),
                        default="auto", help="colour the text format "
                                             "(default: when a terminal)")
    parser.add_argument("--no-color", dest="color", action="store_const",
                        const="never", help="same as --color=never")
    parser.add_argument("--strict", action="store_true",
                        help="also exit 1 when a baseline benchmark is "
                             "missing or failed in the contender, and refuse "
                             "(exit 2) files from different machines")
    parser.add_argument("--allow-inconclusive", action="store_true",
                        help="exit 0, not 4, when nothing in the comparison "
                             "could catch a slowdown (the headline still "
                             "says INCONCLUSIVE)")
    args = parser.parse_args(argv)
    if args.full_output is not None and args.format != "markdown":
        parser.error(f"--full-output {args.full_output}: goes with --format "
                     "markdown (the full form of the pull-request comment)")
    if args.full_output is not None and args.output is not None and (
            os.path.abspath(args.full_output) == os.path.abspath(args.output)):
        parser.error(f"--full-output and --output are both {args.output}: give "
                     "the full report its own file, e.g. compare-full.md")
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha {args.alpha}: must be between 0 and 1, e.g. 0.05")
    try:
        args.overrides = [thresholds.parse_override(t) for t in args.threshold]
    except thresholds.ThresholdError as e:
        parser.error(str(e))
    return args


class _Progress:
    """One line on stderr, rewritten in place, when stderr is a terminal
    (a large suite takes a while); nothing otherwise."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.shown = False
        self.last = -1

    def say(self, text: str) -> None:
        if self.on:
            sys.stderr.write(f"\r\033[Kcompare.py: {formatting.printable(text)}")
            sys.stderr.flush()
            self.shown = True

    def rows(self, what: str, done: int, total: int) -> None:
        percent = 100 * done // max(total, 1)
        if percent != self.last:
            self.last = percent
            self.say(f"{what}: {done}/{total} ({percent}%)")

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


def _error(text: str) -> None:
    """'compare.py: error: TEXT' on stderr, control characters in the
    names it quotes shown as \\xNN (a name cannot print a line of its own)."""
    print(f"compare.py: error: {formatting.printable(text)}", file=sys.stderr)


# Run as a command: what main read and computed, kept to the end of the
# process, which leaves without freeing it (_exit_now). None when main is
# called in a process that goes on.
_HELD: list | None = None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    progress = _Progress()
    try:
        try:
            progress.say(f"reading {args.baseline}")
            baseline = benchjson.load(args.baseline)
            progress.say(f"reading {args.contender}")
            contender = benchjson.load(args.contender)
            progress.say("pairing the runs")
            result = comparison.compare(baseline, contender, args.overrides,
                                        args.alpha, args.metrics, progress.rows)
        finally:
            progress.done()
    except benchjson.BadInput as e:
        _error(str(e))
        return EXIT_BAD_INPUT
    if not result.rows:
        _error(f"{args.baseline} and {args.contender} share no metric"
               + (" matching --metrics" if args.metrics else ""))
        return EXIT_BAD_INPUT
    if result.refusals:
        for refusal in result.refusals:
            _error(refusal)
        return EXIT_BAD_INPUT
    if args.strict and result.machine_differences:
        _error(f"--strict: {args.baseline} and {args.contender} come from "
               "different machines: " + "; ".join(result.machine_differences)
               + "; run both sides on one machine, or drop --strict")
        return EXIT_BAD_INPUT
    result.strict = args.strict
    if _HELD is not None:
        _HELD.extend((baseline, contender, result))
    code = comparison.exit_code(result, args.strict, args.allow_inconclusive)
    parts: Iterable[str]
    if args.format == "json":
        # In parts, written one at a time: the report of a large suite is
        # hundreds of MB.
        parts = compare_json.render_parts(result, code)
    elif args.format == "markdown":
        parts = [compare_markdown.render(result, args.full_output and
                                         os.path.basename(args.full_output))]
    else:
        color = args.color == "always" or (
            args.color == "auto" and args.output is None and sys.stdout.isatty()
            and os.environ.get("NO_COLOR") is None)
        parts = [compare_text.render(result, color)]
    return code if _write(args, result, parts) else EXIT_BAD_INPUT


def _write(args: argparse.Namespace, result: comparison.Comparison,
           parts: Iterable[str]) -> bool:
    """Writes the report, given as its text's parts in order, to --output
    or standard output, and the full report (--full-output), each file
    whole or not at all: the full one first, removed again when the
    report cannot be written. False (said on stderr) when a file could
    not be written."""
    written = []
    for path, content in ((args.full_output, lambda: compare_markdown.render_full(result)),
                          (args.output, lambda: "".join(parts))):
        if path is None:
            continue
        try:
            atomic.write_atomically(path, content())
        except OSError as e:
            _error(f"cannot write {path}: {e.strerror}; check the directory "
                   "exists, is writable and has space")
            for done in written:
                os.unlink(done)
            return False
        written.append(path)
    if args.output is None:
        pipe_size.widen(sys.stdout)
        for part in parts:
            sys.stdout.write(part)
    return True


def _exit_now(code: int) -> None:
    """Ends the process with code once its output is out, without freeing
    what main kept (_HELD): on 180,000 runs a file that is millions of
    objects, a third of a second of freeing memory the process gives back
    whole as it ends. A flush that fails (a closed pipe) exits as usual,
    saying so."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    # A large suite is millions of objects that live until the process
    # ends and hold no cycles to collect: the cyclic collector would walk
    # them again and again (half of compare's time on 180,000 runs a
    # file, scripts/dev/compare_timing.py).
    gc.disable()
    _HELD = []
    _exit_now(front.run("compare.py", main, "the two input files"))
