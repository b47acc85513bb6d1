#!/usr/bin/python3
"""Where scripts/compare.py's time goes on a large suite: the CPU seconds of
each phase (start-up imports, reading both files, comparing, writing one
format), each format in a fresh process, on compare_timing.py's files
(36,000 benchmarks x 5 repetitions by default). A measurement, not a test.

    /usr/bin/python3 scripts/dev/compare_phases.py                 # this checkout
    /usr/bin/python3 scripts/dev/compare_phases.py --before 4ec759e --benchmarks 3600

--before REV adds a row per format for scripts/ as it was at REV. Each
process runs what compare.py's main runs (benchjson.load twice,
comparison.compare, the format's render) with the cyclic collector off,
as compare.py does; the whole command adds argument parsing and writing
the text out. The last column is the part of comparing that pairing
(matching.pair) took.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare_timing  # noqa: E402

# Runs in the child, with scripts/ of the revision first on sys.path.
_CHILD = r"""
import gc, json, sys, time
gc.disable()
clock = time.process_time
start = clock()
from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.render import compare_json, compare_markdown, compare_text
phases = {"start-up": clock() - start}
from pmubench.runs import matching
pair = matching.pair
def timed_pair(*args):
    t = clock()
    result = pair(*args)
    phases["pairing"] = clock() - t
    return result
matching.pair = timed_pair
t = clock()
base, head = benchjson.load(sys.argv[1]), benchjson.load(sys.argv[2])
phases["reading"] = clock() - t
t = clock()
result = comparison.compare(base, head, [], 0.05, None, None)
phases["comparing"] = clock() - t
t = clock()
code = comparison.exit_code(result, False, True)
fmt = sys.argv[3]
text = (compare_json.render(result, code) if fmt == "json" else
        compare_markdown.render(result, None) if fmt == "markdown" else
        compare_text.render(result, False))
phases["writing"] = clock() - t
print(json.dumps(phases))
"""
PHASES = ("start-up", "reading", "comparing", "writing")
# Part of comparing, printed after the total: matching.pair's seconds.
PART = "pairing"


def phases(scripts: str, base: str, head: str, fmt: str) -> dict[str, float]:
    """The CPU seconds of each phase of one format, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=scripts)
    out = subprocess.run(["/usr/bin/python3", "-c", _CHILD, base, head, fmt],
                         env=env, stdout=subprocess.PIPE, check=True, text=True).stdout
    return json.loads(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarks", type=int, default=36000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--formats", default="text,json,markdown")
    parser.add_argument("--before", metavar="REV", action="append", default=[],
                        help="also time scripts/ as it was at git revision REV (repeatable)")
    args = parser.parse_args()
    for rev in args.before:
        if not compare_timing.is_commit(rev):
            parser.error(f"--before {rev}: not a commit of {compare_timing.ROOT}; give "
                         "a commit hash or branch name (git log --oneline lists them)")
    with tempfile.TemporaryDirectory(prefix="pmubench-phases-") as tmp:
        trees = [(rev, os.path.dirname(compare_timing.checkout(
            rev, os.path.join(tmp, f"before{i}")))) for i, rev in enumerate(args.before)]
        trees.append(("now", os.path.join(compare_timing.ROOT, "scripts")))
        base, head = os.path.join(tmp, "base.json"), os.path.join(tmp, "head.json")
        compare_timing.make_file(base, args.benchmarks, args.reps, seed=1)
        compare_timing.make_file(head, args.benchmarks, args.reps, seed=2, slow_every=1000)
        print(f"{args.benchmarks} benchmarks x {args.reps} repetitions; "
              f"load average {os.getloadavg()[0]:.2f}\n")
        print("| format | scripts | " + " | ".join(PHASES) + f" | total | {PART} (of comparing) |\n"
              + "|---" * (len(PHASES) + 4) + "|")
        for fmt in args.formats.split(","):
            for name, scripts in trees:
                seconds = phases(scripts, base, head, fmt)
                cells = " | ".join(f"{seconds[p]:.2f}" for p in PHASES)
                print(f"| {fmt} | {name} | {cells} | {sum(seconds[p] for p in PHASES):.2f} | "
                      f"{seconds[PART]:.2f} |", flush=True)
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
