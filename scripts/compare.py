#!/usr/bin/python3
"""Compare two pmubench (Google Benchmark JSON) runs and fail on regressions.

    python3 scripts/compare.py BASELINE.json CONTENDER.json \
        [--threshold METRIC=PCT ...] [--format text|markdown|json]

Exit status: 0 no regression beyond its threshold, 1 at least one,
2 bad input or usage. The logic lives in scripts/pmubench/compare/.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

EXIT_BAD_INPUT = 2
_DEBIAN_PYTHON = "/usr/bin/python3"

try:
    from pmubench import atomic, benchjson
    from pmubench.compare import comparison, render_json, render_markdown, render_text
    from pmubench.compare import thresholds
except ModuleNotFoundError as missing:
    # `python3` on PATH may be a pyenv shim without scipy/numpy; Debian's
    # interpreter has them (python3-scipy). Retry there once.
    if (os.path.exists(_DEBIAN_PYTHON) and not os.environ.get("PMUBENCH_REEXEC")
            and os.path.realpath(sys.executable) != os.path.realpath(_DEBIAN_PYTHON)):
        os.environ["PMUBENCH_REEXEC"] = "1"
        os.execv(_DEBIAN_PYTHON, [_DEBIAN_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
    print(f"compare.py: error: {missing}; install python3-scipy and python3-numpy "
          f"(apt-get install python3-scipy) and run with {_DEBIAN_PYTHON}",
          file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)

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

default thresholds (class, threshold, metrics):
{table}
  A change smaller than an absolute floor (0.01 per iteration for counts,
  0.001 for IPC and *-ratio) never counts. Override with
  --threshold METRIC=PCT: an exact metric name, a pattern ('*-misses=10'),
  'time' (every metric of the time class) or 'default'; PCT 'off' shows
  a metric without gating it. An exact name beats a pattern; the later of
  two equal rules wins.

exit status: 0 no regression beyond its threshold, 1 at least one
  (with --strict also a benchmark missing or failed in the contender),
  2 bad input or usage.
"""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="compare.py",
        description="Compare a baseline and a contender pmubench/Google "
                    "Benchmark JSON file,\nmetric by metric, and exit 1 on a "
                    "regression beyond its threshold.",
        epilog=_EPILOG.format(table=thresholds.defaults_table()),
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
    parser.add_argument("--color", choices=("auto", "always", "never"),
                        default="auto", help="colour the text format "
                                             "(default: when a terminal)")
    parser.add_argument("--no-color", dest="color", action="store_const",
                        const="never", help="same as --color=never")
    parser.add_argument("--strict", action="store_true",
                        help="also exit 1 when a baseline benchmark is "
                             "missing or failed in the contender")
    args = parser.parse_args(argv)
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha {args.alpha}: must be between 0 and 1, e.g. 0.05")
    try:
        args.overrides = [thresholds.parse_override(t) for t in args.threshold]
    except thresholds.ThresholdError as e:
        parser.error(str(e))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        baseline = benchjson.load(args.baseline)
        contender = benchjson.load(args.contender)
        result = comparison.compare(baseline, contender, args.overrides,
                                    args.alpha, args.metrics)
    except benchjson.BadInput as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not result.rows:
        print(f"compare.py: error: {args.baseline} and {args.contender} share "
              "no metric" + (" matching --metrics" if args.metrics else ""),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    code = comparison.exit_code(result, args.strict)
    if args.format == "json":
        text = render_json.render(result, code)
    elif args.format == "markdown":
        text = render_markdown.render(result)
    else:
        color = args.color == "always" or (
            args.color == "auto" and args.output is None and sys.stdout.isatty()
            and os.environ.get("NO_COLOR") is None)
        text = render_text.render(result, color)
    if args.output:
        try:
            atomic.write_atomically(args.output, text)
        except OSError as e:
            print(f"compare.py: error: cannot write {args.output}: {e.strerror}; "
                  "check the directory exists, is writable and has space",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    else:
        sys.stdout.write(text)
    return code


def guarded_main() -> int:
    """main(), with any unexpected exception reported as exit 2: Python's
    own exit status for a traceback is 1, which CI reads as a regression."""
    try:
        return main()
    except Exception:  # noqa: BLE001 - a bug must not pass for a verdict
        traceback.print_exc()
        print("compare.py: internal error (a bug in compare.py, not a "
              "regression); please report it with the two input files",
              file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(guarded_main())
