#!/usr/bin/python3
"""Merges several runs of one suite into one file of repetitions.

    python3 scripts/merge.py OUT.json IN.json [IN.json ...]

scripts/ci_compare.sh --rounds K joins each side's rounds with this (the
logic is pmubench.runs.merge). Inputs are read by pmubench.runs.benchjson, as
compare.py and plot.py read them. Exit status 2 on bad input, naming the
file. OUT.json is written whole or not at all: a temp file beside it is
renamed over it, and SIGTERM, SIGHUP or SIGINT (a CI timeout) remove the
temp file and exit 128 + the signal's number.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

from pmubench.base import launch

# The standard library is enough today; the one rule of every entry point
# (re-run under /usr/bin/python3 when a module it needs is missing) holds
# as soon as one is added here.
launch.ensure("merge.py", launch.NO_NEEDS)

from pmubench.base import atomic  # noqa: E402
from pmubench.base.exits import EXIT_BAD_INPUT, EXIT_OK, stopped_by  # noqa: E402
from pmubench.runs import benchjson  # noqa: E402
from pmubench.runs import merge  # noqa: E402


def _exit_on(signum: int, _frame) -> None:
    # SystemExit unwinds through atomic.write_atomically, which removes its
    # temp file on any exception; the default action would leave it behind.
    raise SystemExit(stopped_by(signum))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="merge.py", description=(
        "Merge several runs of one suite into one file of repetitions "
        "(scripts/ci_compare.sh --rounds K joins each side's rounds with it). "
        "Exit status 2 on bad input, naming the file."))
    parser.add_argument("out", metavar="OUT.json", help="the merged file, written whole")
    parser.add_argument("inputs", metavar="IN.json", nargs="+",
                        help="the runs to merge (Google Benchmark JSON)")
    return parser


def main(argv: list[str]) -> int:
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _exit_on)
    args = build_parser().parse_args(argv)  # --help: exit 0; bad usage: exit 2
    out, inputs = args.out, args.inputs
    try:
        merged = merge.merge_files([benchjson.load(path) for path in inputs])
    except benchjson.BadInput as e:
        print(f"merge.py: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        atomic.write_atomically(out, json.dumps(merged, indent=2, allow_nan=False) + "\n")
    except OSError as e:
        print(f"merge.py: error: cannot write {out}: {e.strerror}; check the "
              "directory exists, is writable and has space", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
