#!/usr/bin/python3
"""What counting with callgrind costs: runs a pmubench binary natively and
under --pmubench_simulate (instructions, and cache) and prints the wall
time of each whole run and how many cases it reported. (Times per
iteration under valgrind are not a slowdown figure: a simulated batch is a
few dozen iterations with callgrind dumps inside the timed loop.)

    scripts/dev/simulate_cost.py build/cmake/benches/all [--filter REGEX]
        [--modes native,instructions,cache]

Times are wall-clock on whatever machine runs it: a figure to read, not a
limit to test. The counts themselves are exact (tests/runner/
simulate_e2e_test.cc checks them).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MODES = ("native", "instructions", "cache")


def mode_flags(mode: str) -> list[str]:
    """The binary's flags for one mode."""
    if mode == "native":
        return []
    return [f"--pmubench_simulate={mode}"]


def run(binary: str, mode: str, filter_regex: str, out: str) -> float:
    """Runs the binary once; returns its wall time in seconds."""
    cmd = [binary, f"--benchmark_filter={filter_regex}",
           f"--benchmark_out={out}", "--benchmark_out_format=json",
           *mode_flags(mode)]
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def case_counts(path: str) -> tuple[int, int]:
    """(cases reported, cases failed) in a run's JSON file."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    names, failed = set(), set()
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "iteration":
            continue
        names.add(b["name"])
        if b.get("error_occurred"):
            failed.add(b["name"])
    return len(names), len(failed)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--filter", default=".", help="--benchmark_filter")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="comma-separated, of " + ", ".join(MODES))
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    bad = [m for m in modes if m not in MODES]
    if bad:
        parser.error(f"--modes: unknown {', '.join(bad)}; give some of {', '.join(MODES)}")
    if not os.access(args.binary, os.X_OK):
        parser.error(f"{args.binary}: not an executable")
    with tempfile.TemporaryDirectory(prefix="pmubench-simcost.") as tmp:
        for mode in modes:
            out = os.path.join(tmp, f"{mode}.json")
            wall = run(args.binary, mode, args.filter, out)
            cases, failed = case_counts(out)
            print(f"{mode:>12}: whole run {wall:.1f} s, {cases} cases "
                  f"({failed} failed)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
