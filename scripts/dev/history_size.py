#!/usr/bin/python3
"""Measures the history's size per value before and after compaction
(history.py compact), on a synthetic history shaped like the CI recipe's
(docs/history.md, "Keep main's runs"): runs of a simulated suite, each
benchmark with two callgrind counts (exact, stepping now and then) and
valgrind's two times (noisy), ingested run by run as the workflow does.
Prints, for each --keep N, the values kept, the SQLite file's bytes and
the xz-packed bytes the history branch stores (branch_store packs the
file so), per value ingested, and how many runs of this suite fit under
the branch store's limit at that N.

    cd scripts && /usr/bin/python3 -m dev.history_size [--benchmarks 120] [--runs 200] \\
        [--reps 3] [--keep 100 50 20]

Everything lives in a temp directory removed at the end.
"""

from __future__ import annotations

import argparse
import lzma
import os
import shutil
import sys
import tempfile

from pmubench.base import launch  # noqa: E402

launch.ensure("history_size.py", launch.HISTORY_NEEDS)

import numpy as np  # noqa: E402

from pmubench.history import branch_store, compact, ingest, store, synthetic  # noqa: E402

T0 = 1.7e9


def suite_values(i: int, benchmarks: int, reps: int, rng) -> dict:  # noqa: ANN001
    """Run i's values: per benchmark two exact counts that step at about
    one commit in 40, and valgrind's real_time and cpu_time (noisy)."""
    out = {}
    for b in range(benchmarks):
        steps = (i + 7 * b) // 40
        count = float(1000 * (b + 1) + 3 * steps)
        out[f"BM_{b}"] = {"callgrind/instructions/": [count] * reps,
                          "callgrind/L1-dcache-loads/": [count / 3] * reps,
                          "real_time": list(50 * (b + 1) * (1 + rng.normal(0, 0.05, reps))),
                          "cpu_time": list(50 * (b + 1) * (1 + rng.normal(0, 0.05, reps)))}
    return out


def build(db: str, workdir: str, args: argparse.Namespace) -> int:
    """Ingests args.runs run files; returns the values ingested."""
    engine = store.open_store(db, create=True)
    rng = np.random.default_rng(1)
    values = 0
    for i in range(args.runs):
        path = synthetic.write(os.path.join(workdir, "run.json"), synthetic.run(
            T0 + 3600 * i, suite_values(i, args.benchmarks, args.reps, rng)))
        prepared = ingest.prepare(path)
        ingest.write(engine, prepared, f"{i:040x}", "main", prepared.time, None)
        values += prepared.value_count
    engine.dispose()
    return values


def measure(db: str) -> tuple[int, int, int]:
    """(values stored, file bytes, xz bytes as the history branch packs it)."""
    _, stored = branch_store.history_size(db)
    with open(db, "rb") as f:
        packed = len(lzma.compress(f.read()))
    return stored, os.path.getsize(db), packed


def fitting_runs(keep: int, full: float, old: float) -> int:
    """Runs that fit under the branch store's limit: the newest `keep` at
    `full` packed bytes a run, every older one at `old` (a run compacted:
    measured on the history compacted whole, --keep-commits 0)."""
    return int(keep + (branch_store.DEFAULT_MAX_BYTES - keep * full) / old)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmarks", type=int, default=120)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--keep", type=int, nargs="+", default=[100, 50, 20])
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="pmubench-history-size-")
    try:
        base = os.path.join(workdir, "base.db")
        ingested = build(base, workdir, args)
        stored, size, packed = measure(base)
        print(f"history: {args.benchmarks} benchmarks x 4 metrics x {args.reps} repetitions, "
              f"{args.runs} runs: {ingested:,} values ingested")
        print("keep | values kept | file MB | bytes/value | xz MB | xz bytes/value | runs "
              "that fit the branch store")
        rows = [("all", stored, size, packed)]
        for keep in sorted(set(args.keep) | {0}, reverse=True):
            db = os.path.join(workdir, f"keep{keep}.db")
            shutil.copy(base, db)
            engine = store.open_store(db)
            compact.compact(engine, keep)
            engine.dispose()
            rows.append((keep, *measure(db)))
        full, old = packed / args.runs, rows[-1][3] / args.runs
        for keep, kept, file_bytes, xz in rows:
            fit = fitting_runs(keep, full, old) if keep != "all" else int(
                branch_store.DEFAULT_MAX_BYTES / full)
            print(f"{keep} | {kept:,} | {file_bytes / 1e6:.2f} | {file_bytes / ingested:.1f} | "
                  f"{xz / 1e6:.2f} | {xz / ingested:.2f} | {fit:,}")
        print("(bytes per value: per value ingested, so the compacted rows show what a "
              "value of the suite's output costs to keep)")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
