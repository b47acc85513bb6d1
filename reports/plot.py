#!/usr/bin/python3
"""Plots pmubench (Google Benchmark JSON) runs into PNGs and an index.html.

    python3 reports/plot.py RUN.json [MORE.json ...] -o OUTDIR [--folded FILE ...]

With several files the first is the baseline of the comparison plots.
Exit status: 0 written, 2 bad input or usage (the message names the file)
or no numpy/scipy/matplotlib here nor in /usr/bin/python3 (which it re-runs
under when this python3 lacks them: pmubench.base.launch),
128+N stopped by signal N (SIGTERM, SIGINT): OUTDIR is left as it was (or,
when the signal came after the swap, holds the whole new report) and the
staging directory is removed.
The report is the pmubench package's report layer: reports/pmubench is a
symbolic link to the package (scripts/pmubench), so that this front imports
it without touching sys.path, and a reader finds the report's modules from
here: reports/pmubench/report/ (reports/README.md maps them).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from pmubench.base import launch

# Before anything needing numpy, scipy or matplotlib: re-runs under
# /usr/bin/python3 when this python3 lacks them (as every entry point).
launch.ensure("plot.py", launch.REPORT_NEEDS)

from pmubench.base.exits import EXIT_BAD_INPUT, EXIT_OK, stopped_by  # noqa: E402
from pmubench.runs import benchjson  # noqa: E402
from pmubench.report import outdir as outdir_mod  # noqa: E402
from pmubench.report.progress import Progress  # noqa: E402
from pmubench.report.write import write_report  # noqa: E402


def _stop(signum: int, _frame) -> None:
    """SIGTERM/SIGINT: removes the staging directory and exits 128+signum.
    Done here, not by raising an exception to unwind: one raised while a
    finalizer (__del__) runs is printed and dropped, and the run would go
    on. The swap's steps hold these signals, so the staging directories
    remembered are exactly those on disk."""
    outdir_mod.discard_all()
    newline = "\n" if sys.stderr.isatty() else ""  # after a progress line
    sys.stderr.write(f"{newline}plot.py: stopped by {signal.Signals(signum).name}; "
                     "its staging directory is removed\n")
    sys.stderr.flush()
    os._exit(stopped_by(signum))


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="plot.py",
        description="Plot pmubench JSON runs (--benchmark_out_format=json) into "
                    "PNGs and OUTDIR/index.html. With several files the first is "
                    "the baseline of the comparison plots.")
    parser.add_argument("files", nargs="+", metavar="RUN.json",
                        help="Google Benchmark JSON written by pmubench")
    parser.add_argument("-o", "--outdir", required=True, metavar="OUTDIR",
                        help="report directory; an earlier report there is replaced whole")
    parser.add_argument("--folded", action="append", default=[], metavar="FILE",
                        help="folded stacks written by --pmubench_profile_out (with "
                             "--pmubench_profile_callchain): drawn as an SVG flame "
                             "graph in the report; repeatable. With two RUN.json files "
                             "and two --folded files, the first is the baseline's and "
                             "the second the contender's call chains, drawn as the "
                             "differential flame graph of each changed benchmark")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop)
    progress = Progress()
    try:
        try:
            rep = write_report(args.files, args.outdir, progress, args.folded)
        finally:
            progress.done()
    except benchjson.BadInput as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:  # e.g. no permission or no space where OUTDIR goes
        print(f"plot.py: error: {args.outdir}: cannot write the report: {e}; "
              "pass -o a writable directory", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"wrote {len(rep.figures())} plots and "
          f"{os.path.join(args.outdir, 'index.html')}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
