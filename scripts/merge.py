#!/usr/bin/python3
"""Merges several runs of one suite into one file of repetitions.

    python3 scripts/merge.py OUT.json IN.json [IN.json ...]
    python3 scripts/merge.py --shards OUT.json SHARD.json [SHARD.json ...]

With --shards the inputs are the files of shards 1..N of one run
(--pmubench_shard=I/N), each once, in any order: OUT.json is that run as
one unsharded run would have written it, cases in registration order.

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
import sys

from pmubench.base import launch

# The standard library is enough today; the one rule of every entry point
# (re-run under /usr/bin/python3 when a module it needs is missing) holds
# as soon as one is added here.
launch.ensure("merge.py", launch.NO_NEEDS)

from pmubench.base import atomic, front  # noqa: E402
from pmubench.base.exits import EXIT_BAD_INPUT, EXIT_OK  # noqa: E402
from pmubench.runs import benchjson  # noqa: E402
from pmubench.runs import merge  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="merge.py", description=(
        "Merge several runs of one suite into one file of repetitions "
        "(scripts/ci_compare.sh --rounds K joins each side's rounds with it), or "
        "with --shards the shards of one suite into the unsharded run. "
        "Exit status 2 on bad input, naming the file."))
    parser.add_argument("--shards", action="store_true",
                        help="the inputs are the shards of one run (--pmubench_shard=I/N): "
                             "join them in registration order")
    parser.add_argument("out", metavar="OUT.json", help="the merged file, written whole")
    parser.add_argument("inputs", metavar="IN.json", nargs="+",
                        help="the runs to merge (Google Benchmark JSON)")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)  # --help: exit 0; bad usage: exit 2
    out, inputs, shards = args.out, args.inputs, args.shards
    try:
        if shards:
            merged = merge.join_shards(
                [(path, benchjson.read_json(path)) for path in inputs])
        else:
            merged = merge.merge_rounds(
                [(path, benchjson.read_json(path)) for path in inputs])
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
    sys.exit(front.run("merge.py", lambda: main(sys.argv[1:]), "the input files"))
