#!/usr/bin/python3
"""How long scripts/compare.py takes on a large suite (issue 22, item 13;
issue 43, item 2).

Writes two Google Benchmark files of BENCHMARKS x REPS runs each (by default
36,000 x 5 = 180,000 runs, about 90 MB a file, as the suite on a machine
without a PMU writes them: real_time, cpu_time, task-clock, page-faults,
minor-faults, context-switches, pmu_running_fraction), a baseline and a
contender with noise and a few slowed benchmarks, then times compare.py on
them in each format and prints the figures. A measurement, not a test: it
asserts nothing about wall-clock time.

    /usr/bin/python3 scripts/dev/compare_timing.py                  # full size
    /usr/bin/python3 scripts/dev/compare_timing.py --benchmarks 3600
    /usr/bin/python3 scripts/dev/compare_timing.py --formats text --timeout 900
    # another checkout's compare.py on the same files:
    /usr/bin/python3 scripts/dev/compare_timing.py --compare /tmp/old/scripts/compare.py
    # before and after: compare.py at a git revision, then this checkout's,
    # each format in turn, and a table of both (and whether the outputs match);
    # --before again adds a column per revision:
    /usr/bin/python3 scripts/dev/compare_timing.py --before 2abdb0e
    /usr/bin/python3 scripts/dev/compare_timing.py --before 2abdb0e --before 4ec759e
    # each format N times in turn (before, now, before, now, ...): the table
    # gives each one's median CPU seconds and its range
    /usr/bin/python3 scripts/dev/compare_timing.py --before 2abdb0e --repeat 3

Each line gives the wall time and the CPU time (user + system) of the
compare.py process: on a shared machine the wall time follows the load, the
CPU time much less.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPARE = os.path.join(ROOT, "scripts", "compare.py")


def make_file(path: str, benchmarks: int, reps: int, seed: int,
              slow_every: int = 0) -> None:
    """One file; with slow_every, every slow_every-th benchmark's times and
    instructions are 30% higher."""
    rng = random.Random(seed)
    context = {"host_name": "vm", "num_cpus": 2, "mhz_per_cpu": 2000,
               "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1}],
               "load_avg": [1.0, 1.0, 1.0], "library_build_type": "release",
               "pmubench_version": "0.1.0"}
    with open(path, "w", encoding="utf-8") as f:
        f.write('{\n  "context": ' + json.dumps(context) + ',\n  "benchmarks": [\n')
        first = True
        for b in range(benchmarks):
            name = f"BM_Case{b // 100}/{b % 100}"
            slow = 1.3 if slow_every and b % slow_every == 0 else 1.0
            base_time = 10.0 + (b % 997)
            for i in range(reps):
                t = base_time * slow * rng.uniform(0.97, 1.03)
                run = {"name": name, "family_index": b // 100,
                       "per_family_instance_index": b % 100, "run_name": name,
                       "run_type": "iteration", "repetitions": reps,
                       "repetition_index": i, "threads": 1, "iterations": 100000,
                       "real_time": t * rng.uniform(1.0, 1.05), "cpu_time": t,
                       "time_unit": "ns", "context-switches": 0.0,
                       "instructions": (100.0 + b % 50) * slow,
                       "minor-faults": 0.0, "page-faults": float(b % 3 == 0),
                       "pmu_running_fraction": 1.0, "task-clock": t * 0.99}
                f.write(("" if first else ",\n") + "    " + json.dumps(run))
                first = False
        f.write("\n  ]\n}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarks", type=int, default=36000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--formats", default="text,json,markdown",
                        help="comma-separated compare.py formats to time")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="give up on one compare.py run after this many seconds")
    parser.add_argument("--dir", help="write the files here (default: a temp dir, removed)")
    parser.add_argument("--compare", default=COMPARE, metavar="PATH",
                        help="the compare.py to time (default: this checkout's)")
    parser.add_argument("--before", metavar="REV", action="append", default=[],
                        help="also time scripts/compare.py as it was at git revision REV "
                             "(each format before, then after) and print a table of "
                             "both, with whether their outputs are the same bytes; "
                             "repeatable (a column per revision, in order)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep base.json and head.json already in --dir")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="time each compare.py N times, in turn, and give the "
                             "median and range of each in the table (a shared "
                             "machine's speed moves from run to run)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: must be 1 or more, e.g. 3")
    for rev in args.before:
        if not is_commit(rev):
            parser.error(f"--before {rev}: not a commit of {ROOT}; give a commit "
                         "hash or branch name (git log --oneline lists them)")
    with tempfile.TemporaryDirectory(prefix="pmubench-timing-") as tmp:
        before = [checkout(rev, os.path.join(tmp, f"before{i}"))
                  for i, rev in enumerate(args.before)]
        where = args.dir or tmp
        os.makedirs(where, exist_ok=True)
        base, head = os.path.join(where, "base.json"), os.path.join(where, "head.json")
        start = time.monotonic()
        if not (args.reuse and os.path.exists(base) and os.path.exists(head)):
            make_file(base, args.benchmarks, args.reps, seed=1)
            make_file(head, args.benchmarks, args.reps, seed=2, slow_every=1000)
        size = os.path.getsize(base) / 1e6
        print(f"files: {args.benchmarks} benchmarks x {args.reps} repetitions = "
              f"{args.benchmarks * args.reps} runs a file, {size:.1f} MB each; "
              f"written in {time.monotonic() - start:.1f} s", flush=True)
        table = [(fmt, _timed_rounds(before + [args.compare], base, head, fmt,
                                     args.timeout, args.repeat))
                 for fmt in args.formats.split(",")]
        if before or args.repeat > 1:
            _print_table(args.before, table)
    return 0


def _timed_rounds(compares: list[str], base: str, head: str, fmt: str, timeout: float,
                  repeat: int) -> list[tuple[list[float], set[str]] | None]:
    """Each compare.py run repeat times in one format, in turn: (its CPU
    seconds, the digests of its outputs), or None when a run did not
    finish."""
    out: list[tuple[list[float], set[str]] | None] = [([], set()) for _ in compares]
    for _ in range(repeat):
        for i, compare in enumerate(compares):
            timed = _time(compare, base, head, fmt, timeout) if out[i] is not None else None
            if timed is None:
                out[i] = None
                continue
            out[i][0].append(timed[0])
            out[i][1].add(timed[1])
    return out


def is_commit(rev: str) -> bool:
    """True when rev names a commit of this checkout's repository."""
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet",
                           f"{rev}^{{commit}}"], capture_output=True).returncode == 0


def checkout(rev: str, out: str) -> str:
    """scripts/ of git revision rev under the new directory out; the path
    of its compare.py."""
    os.makedirs(out)
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "scripts"],
                             stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", out], input=archive, check=True)
    return os.path.join(out, "scripts", "compare.py")


def _time(compare: str, base: str, head: str, fmt: str, timeout: float
          ) -> tuple[float, str] | None:
    """Runs one compare.py in one format and prints its line: (CPU seconds,
    sha256 of its output), or None when it did not finish."""
    extra = ["--allow-inconclusive"] if _knows_allow_inconclusive(compare) else []
    print(f"timing {compare}; load average {os.getloadavg()[0]:.2f}", flush=True)
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(
            ["/usr/bin/python3", compare, base, head, "--format", fmt, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"compare.py --format {fmt}: did not finish in {timeout:.0f} s", flush=True)
        return None
    elapsed = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"compare.py --format {fmt}: {elapsed:.1f} s wall, {cpu:.1f} s CPU, "
          f"exit {proc.returncode}, {len(proc.stdout) / 1e6:.1f} MB of output, "
          f"load average now {os.getloadavg()[0]:.2f}", flush=True)
    if proc.returncode not in (0, 1, 4):
        print(proc.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
    return cpu, hashlib.sha256(proc.stdout + f"exit {proc.returncode}".encode()).hexdigest()


def _print_table(revs: list[str], table: list) -> None:
    """A row per format: the CPU seconds at each revision and now (the
    median, and the range of several runs), and whether each revision
    wrote the bytes and exit status written now, every time."""
    heads = "".join(f" CPU s at {rev} |" for rev in revs)
    print(f"\n| format |{heads} CPU s now | same output and exit as now |\n"
          + "|---" * (len(revs) + 3) + "|")
    for fmt, timed in table:
        cells = " | ".join(_cpu_cell(t) for t in timed)
        now = timed[-1]
        same = ", ".join(f"{rev}: {'yes' if _same(t, now) else 'NO'}"
                         for rev, t in zip(revs, timed))
        print(f"| {fmt} | {cells} | {same or '-'} |")


def _same(timed: tuple[list[float], set[str]] | None,
          now: tuple[list[float], set[str]] | None) -> bool:
    """Every run of both wrote one and the same output and exit status."""
    return timed is not None and now is not None and len(now[1]) == 1 and timed[1] == now[1]


def _cpu_cell(timed: tuple[list[float], set[str]] | None) -> str:
    """'6.1', or '6.1 (5.9-6.3)' for several runs: the median CPU seconds
    and the range."""
    if timed is None:
        return "did not finish"
    cpu = timed[0]
    median = statistics.median(cpu)
    return f"{median:.1f}" + (f" ({min(cpu):.1f}-{max(cpu):.1f})" if len(cpu) > 1 else "")


def _knows_allow_inconclusive(compare: str) -> bool:
    proc = subprocess.run(["/usr/bin/python3", compare, "--help"],
                          capture_output=True, text=True)
    return "--allow-inconclusive" in proc.stdout


if __name__ == "__main__":
    sys.exit(main())
