#!/usr/bin/python3
"""Measures the results history: ingest rate into SQLite and PostgreSQL
(values per second), detect after one new run, and report, on a history
of SERIES series x COMMITS commits; prints the figures docs/history.md
quotes.

    cd scripts && /usr/bin/python3 -m dev.bench_history [--series 2000] [--commits 1000] [--reps 3]

The history is synthetic (pmubench.history.synthetic): native runs
(perf_event: a simulator's times would never be judged), a third of the
series exact instruction counts, two thirds noisy times, a step every 250
commits in one benchmark of ten. Files and the PostgreSQL cluster (when PostgreSQL 15
is installed) live in a temp directory removed at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

from pmubench.base import launch  # noqa: E402

launch.ensure("bench_history.py", launch.HISTORY_NEEDS)

import numpy as np  # noqa: E402
from sqlalchemy import event  # noqa: E402

from pmubench.history import detect, ingest, pgcluster, report, store, synthetic  # noqa: E402

T0 = 1.7e9


def run_values(i: int, benchmarks: int, reps: int, rng) -> dict:
    """Commit i's values: per benchmark an exact count and two noisy times,
    the count and real_time with a step every 250 commits in one of ten."""
    out = {}
    for b in range(benchmarks):
        step = (i // 250) if b % 10 == 0 else 0
        count = 1000.0 + b + 10 * step
        out[f"BM_{b}"] = {"instructions": [count] * reps,
                          "real_time": list(100 + b + step * 5 + rng.normal(0, 1, reps)),
                          "cpu_time": list(100 + b + rng.normal(0, 1, reps))}
    return out


def prepared_run(path: str, i: int, benchmarks: int, reps: int, rng) -> ingest.Prepared:
    """A run file written and read back the way ingest reads it."""
    synthetic.write(path, synthetic.run(T0 + i * 3600, run_values(i, benchmarks, reps, rng),
                                        "perf_event"))
    return ingest.prepare(path)


def ingest_rate(db: str, workdir: str, benchmarks: int, reps: int, runs: int) -> float:
    """Values per second through prepare (JSON read and checked) and write."""
    engine = store.open_store(db, create=True)
    rng = np.random.default_rng(1)
    values = 0
    start = time.perf_counter()
    for i in range(runs):
        p = prepared_run(os.path.join(workdir, "rate.json"), 100000 + i, benchmarks, reps, rng)
        ingest.write(engine, p, f"{i:040x}", "rate", p.time, None)
        values += p.value_count
    engine.dispose()
    return values / (time.perf_counter() - start)


def build_history(db: str, workdir: str, benchmarks: int, reps: int, commits: int) -> None:
    """The big history, through ingest.write run by run (no JSON), with
    SQLite's fsync off: setting up, not measuring."""
    engine = store.open_store(db, create=True)
    event.listen(engine, "connect",
                 lambda conn, _record: conn.execute("PRAGMA synchronous=OFF"))
    engine.dispose()
    rng = np.random.default_rng(2)
    path = os.path.join(workdir, "run.json")
    synthetic.write(path, synthetic.run(T0, run_values(0, benchmarks, reps, rng), "perf_event"))
    template = ingest.prepare(path)
    for i in range(commits):
        values = run_values(i, benchmarks, reps, rng)
        template.values = {(b, m): v for b, metrics in values.items()
                           for m, v in metrics.items()}
        template.content_hash = f"{i:064x}"
        ingest.write(engine, template, f"{i:040x}", "main", T0 + i * 3600, None)
        if i % 100 == 99:
            print(f"  built {i + 1}/{commits} commits", file=sys.stderr)
    engine.dispose()


def timed(what: str, fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    print(f"{what}: {time.perf_counter() - wall:.2f} s wall, "
          f"{time.process_time() - cpu:.2f} s CPU")
    return result


def bench_big(db: str, workdir: str, args: argparse.Namespace) -> None:
    benchmarks = args.series // 3
    print(f"history: {args.series} series x {args.commits} commits x {args.reps} repetitions "
          f"({args.series * args.commits * args.reps:,} values) in {db}")
    timed("building it (ingest.write per run, no JSON)",
          lambda: build_history(db, workdir, benchmarks, args.reps, args.commits))
    print(f"database size: {os.path.getsize(db) / 1e6:.0f} MB")
    engine = store.open_store(db)
    params = detect.Params()
    first = timed("detect, first (every series from scratch)",
                  lambda: detect.refresh(engine, "main", params))
    print(f"  {first.recomputed} series, {len(first.changes())} change points")
    rng = np.random.default_rng(3)
    p = prepared_run(os.path.join(workdir, "new.json"), args.commits, benchmarks,
                     args.reps, rng)
    timed("ingest of one new run", lambda: ingest.write(engine, p, "f" * 40, "main",
                                                        T0 + args.commits * 3600, None))
    again = timed("detect after one new run", lambda: detect.refresh(engine, "main", params))
    print(f"  {again.appended} series appended, {again.recomputed} recomputed")
    out = os.path.join(workdir, "report")
    timed("report", lambda: report.write_report(engine, "main", params, out))
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    print(f"  report: {len(os.listdir(out))} files, {size / 1e6:.1f} MB")
    engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--rate-runs", type=int, default=10,
                        help="runs ingested to measure the rate (default 10)")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="pmubench-bench-history-")
    try:
        benchmarks = args.series // 3
        rate = ingest_rate(os.path.join(workdir, "rate.db"), workdir, benchmarks,
                           args.reps, args.rate_runs)
        print(f"ingest into SQLite: {rate:,.0f} values/s ({args.rate_runs} runs of "
              f"{args.series * args.reps} values, JSON read included)")
        why = pgcluster.available()
        if why:
            print(f"ingest into PostgreSQL: skipped, {why}")
        else:
            with pgcluster.Cluster() as cluster:
                url = cluster.createdb("bench")
                rate = ingest_rate(url, workdir, benchmarks, args.reps, args.rate_runs)
                print(f"ingest into PostgreSQL (unix socket, fsync off): {rate:,.0f} values/s")
        bench_big(os.path.join(workdir, "big.db"), workdir, args)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
