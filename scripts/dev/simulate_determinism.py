#!/usr/bin/python3
"""Do simulated counts move? Runs a pmubench binary under --pmubench_simulate
several times in each mode (instructions, cache) and in situations that must
not change a count, and prints every row (case and callgrind/* field) whose
value differs from the first run's.

    scripts/dev/simulate_determinism.py build/cmake/benches/all
        [--filter REGEX] [--modes instructions,cache] [--runs 3]
        [--alone N] [--iterations N]

The situations, each a whole run of the filtered cases unless said:
  run 1..R      the binary as given, R times (--runs, default 3);
  other path    a copy of the binary under a much longer directory name,
                with a larger environment and a harmless extra flag
                (--benchmark_counters_tabular=false);
  alone         the first N cases (--alone, default 0) each run by itself
                (--benchmark_filter=^NAME$).

Each line of output is "MODE SITUATION CASE FIELD first -> this (delta)";
a summary per mode counts the rows compared and the rows that differ. Exit
0 when nothing differs, 1 when something does, 2 on bad input. A
measurement, not a test: the whole default suite takes tens of minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

MODES = ("instructions", "cache")
# A copy of the binary under this many more path characters than a short
# temp path, and this much more environment.
LONG_DIR = "a-much-longer-directory-name-than-the-first-one-" * 3
PADDED_ENV = {"PMUBENCH_DETERMINISM_PADDING": "x" * 3000}


def run_once(binary: str, mode: str, filter_regex: str, out: str,
             iterations: int, extra: list[str] | None = None,
             env: dict[str, str] | None = None) -> float:
    """Runs the binary once under callgrind; returns the wall seconds."""
    cmd = [binary, f"--pmubench_simulate={mode}",
           f"--benchmark_filter={filter_regex}",
           f"--benchmark_out={out}", "--benchmark_out_format=json",
           *(extra or [])]
    if iterations:
        cmd.append(f"--pmubench_simulate_iterations={iterations}")
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})})
    return time.monotonic() - start


def simulated_rows(path: str) -> dict[tuple[str, str], float]:
    """(case, field) -> value for every callgrind/* field of every case."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "iteration":
            continue
        for key, value in b.items():
            if key.startswith("callgrind/") and isinstance(value, (int, float)):
                rows[(b["name"], key)] = float(value)
    return rows


def differences(first: dict, other: dict) -> list[tuple]:
    """(case, field, first, other) for each row both have and that differs."""
    return [(case, field, value, other[(case, field)])
            for (case, field), value in sorted(first.items())
            if (case, field) in other and other[(case, field)] != value]


def print_differences(mode: str, situation: str, diffs: list[tuple]) -> None:
    for case, field, a, b in diffs:
        rel = (b - a) / a * 100 if a else float("inf")
        print(f"{mode} {situation}: {case} {field} {a:.6g} -> {b:.6g} "
              f"({rel:+.3f}%)", flush=True)


def situations(args, tmp: str) -> list[tuple[str, str, list, dict]]:
    """(name, binary, extra flags, extra env) of each whole run after run 1."""
    out = [(f"run {i}", args.binary, [], {}) for i in range(2, args.runs + 1)]
    far = os.path.join(tmp, LONG_DIR, "bin")
    os.makedirs(far)
    copy = os.path.join(far, os.path.basename(args.binary))
    shutil.copy2(args.binary, copy)
    out.append(("other path", copy, ["--benchmark_counters_tabular=false"],
                PADDED_ENV))
    return out


def case_names(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    names = []
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "iteration" and b["name"] not in names:
            names.append(b["name"])
    return names


def escape(name: str) -> str:
    return "".join("\\" + c if c in ".[]()*+?^$|\\{}" else c for c in name)


def check_mode(args, mode: str, tmp: str) -> int:
    """Runs one mode's situations; returns how many rows differed."""
    first_out = os.path.join(tmp, f"{mode}-1.json")
    wall = run_once(args.binary, mode, args.filter, first_out, args.iterations)
    first = simulated_rows(first_out)
    print(f"{mode} run 1: {len(first)} rows, {wall:.0f} s", flush=True)
    differing = set()
    for name, binary, extra, env in situations(args, os.path.join(tmp, mode)):
        out = os.path.join(tmp, f"{mode}-{name.replace(' ', '-')}.json")
        wall = run_once(binary, mode, args.filter, out, args.iterations, extra,
                        env)
        diffs = differences(first, simulated_rows(out))
        print(f"{mode} {name}: {len(diffs)} rows differ, {wall:.0f} s",
              flush=True)
        print_differences(mode, name, diffs)
        differing.update((c, f) for c, f, _, _ in diffs)
    for case in case_names(first_out)[:args.alone]:
        out = os.path.join(tmp, f"{mode}-alone.json")
        run_once(args.binary, mode, f"^{escape(case)}$", out, args.iterations)
        diffs = differences(first, simulated_rows(out))
        print_differences(mode, "alone", diffs)
        differing.update((c, f) for c, f, _, _ in diffs)
    cases = {c for c, _ in first}
    print(f"{mode}: {len(differing)} of {len(first)} rows differ, in "
          f"{len({c for c, _ in differing})} of {len(cases)} cases", flush=True)
    return len(differing)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--filter", default=".", help="--benchmark_filter")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="comma-separated, of " + ", ".join(MODES))
    parser.add_argument("--runs", type=int, default=3,
                        help="whole runs from the binary's own path")
    parser.add_argument("--alone", type=int, default=0,
                        help="run the first N cases each by itself too")
    parser.add_argument("--iterations", type=int, default=0,
                        help="--pmubench_simulate_iterations (0: default)")
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    bad = [m for m in modes if m not in MODES]
    if bad:
        parser.error(f"--modes: unknown {', '.join(bad)}; give some of "
                     f"{', '.join(MODES)}")
    if not os.access(args.binary, os.X_OK):
        parser.error(f"{args.binary}: not an executable")
    if args.runs < 1 or args.alone < 0 or args.iterations < 0:
        parser.error("--runs must be 1 or more, --alone and --iterations 0 "
                     "or more")
    args.binary = os.path.abspath(args.binary)
    differing = 0
    with tempfile.TemporaryDirectory(prefix="pmubench-determinism.") as tmp:
        for mode in modes:
            differing += check_mode(args, mode, tmp)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
