#!/usr/bin/python3
"""Measures the results history: ingest into SQLite and PostgreSQL (values
per CPU second of whole `history.py ingest` commands, start-up included, on
runs of BENCHMARKS benchmarks x 3 repetitions x 8 metrics), detect first and
after one new run, and report, on a history of SERIES series x COMMITS
commits; prints the figures docs/history.md quotes.

    cd scripts && /usr/bin/python3 -m dev.bench_history [--series 2000] [--commits 1000] [--reps 3]
        [--ingest-benchmarks 2000] [--ingest-runs 5]     (--commits 0: ingest only)

The history is synthetic (pmubench.history.synthetic): native runs
(perf_event: a simulator's times would never be judged), a third of the
series exact instruction counts, two thirds noisy times, a step every 250
commits in one benchmark of ten. Files and the PostgreSQL cluster (when PostgreSQL 15
is installed) live in a temp directory removed at the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
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


HISTORY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "history.py")
# A run's metrics in the ingest measure: the times and six counters.
INGEST_METRICS = ("real_time", "cpu_time", "instructions", "cycles", "branches",
                  "branch-misses", "cache-misses", "L1-dcache-load-misses")


def ingest_files(workdir: str, benchmarks: int, runs: int) -> list[str]:
    """runs run files of benchmarks x 3 repetitions x 8 metrics each."""
    rng = np.random.default_rng(1)
    paths = []
    for i in range(runs):
        values = {f"BM_{b}": {m: list(100.0 + b + rng.normal(0, 1, 3)) if m.endswith("time")
                              else [1000.0 + b] * 3 for m in INGEST_METRICS}
                  for b in range(benchmarks)}
        paths.append(synthetic.write(os.path.join(workdir, f"ingest{i}.json"),
                                     synthetic.run(T0 + i * 3600, values, "perf_event")))
    return paths


def command_cpu(argv: list[str]) -> float:
    """CPU seconds (user and system) of one command, run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def ingest_rates(db_of, paths: list[str], values: int, server=None) -> list[float]:  # noqa: ANN001
    """Values per CPU second of whole `history.py ingest` commands, each into
    a new database (db_of(name) makes one): all files in one command, then
    one command per file; with a server (pgcluster.Cluster), each figure
    again with the server's CPU added."""
    ingest_cmd = [sys.executable, HISTORY, "ingest", "--commit", "ab" * 20, "--branch", "main"]
    total = values * len(paths)
    together_db, single = db_of("together"), db_of("single")
    server_start = server.cpu_seconds() if server else 0.0
    together = command_cpu([*ingest_cmd, "--db", together_db, *paths])
    server_together = server.cpu_seconds() - server_start if server else 0.0
    each = sum(command_cpu([*ingest_cmd, "--db", single, path]) for path in paths)
    server_each = server.cpu_seconds() - server_start - server_together if server else 0.0
    rates = [total / together, total / each]
    if server:
        rates += [total / (together + server_together), total / (each + server_each)]
    return rates


def print_ingest(workdir: str, args: argparse.Namespace) -> None:
    paths = ingest_files(workdir, args.ingest_benchmarks, args.ingest_runs)
    values = args.ingest_benchmarks * 3 * len(INGEST_METRICS)
    print(f"ingest of {len(paths)} runs of {values:,} values into a new database, values "
          "per CPU second of whole history.py commands (start-up included): "
          "all runs in one command / one command per run")
    rates = ingest_rates(lambda name: os.path.join(workdir, f"{name}.db"), paths, values)
    print("  SQLite: {:,.0f} / {:,.0f}".format(*rates))
    why = pgcluster.available()
    if why:
        print(f"  PostgreSQL: skipped, {why}")
        return
    with pgcluster.Cluster() as cluster:
        rates = ingest_rates(cluster.createdb, paths, values, cluster)
    print("  PostgreSQL (unix socket, fsync off), the command's CPU: {:,.0f} / {:,.0f}; "
          "with the server's: {:,.0f} / {:,.0f}".format(*rates))


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
    parser.add_argument("--ingest-benchmarks", type=int, default=2000,
                        help="benchmarks of each run the ingest measure writes (default 2000)")
    parser.add_argument("--ingest-runs", type=int, default=5,
                        help="runs the ingest measure writes (default 5)")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="pmubench-bench-history-")
    try:
        print_ingest(workdir, args)
        if args.commits > 0:
            bench_big(os.path.join(workdir, "big.db"), workdir, args)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
