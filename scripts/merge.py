#!/usr/bin/python3
"""Merges several runs of one suite into one file of repetitions.

    python3 scripts/merge.py OUT.json IN.json [IN.json ...]

scripts/ci_compare.sh --rounds K joins each side's rounds with this (the
logic is pmubench.compare.merge). Exit status 2 on bad input, naming the file.
"""

from __future__ import annotations

import json
import sys

from pmubench import atomic, benchjson
from pmubench.compare import merge


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: merge.py OUT.json IN.json [IN.json ...]", file=sys.stderr)
        return 2
    out, inputs = argv[0], argv[1:]
    try:
        merged = merge.merge([(path, benchjson.read_json(path)) for path in inputs])
    except benchjson.BadInput as e:
        print(f"merge.py: error: {e}", file=sys.stderr)
        return 2
    try:
        atomic.write_atomically(out, json.dumps(merged, indent=2, allow_nan=False) + "\n")
    except OSError as e:
        print(f"merge.py: error: cannot write {out}: {e.strerror}; check the "
              "directory exists, is writable and has space", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
