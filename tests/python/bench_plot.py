#!/usr/bin/python3
"""Measures reports/plot.py on large generated inputs (not a test: prints
figures, asserts nothing).

    /usr/bin/python3 tests/python/bench_plot.py [--runs 2000,8000,50000]
        [--shape files|sweep] [--plot reports/plot.py]
    /usr/bin/python3 tests/python/bench_plot.py --compare BASE.json HEAD.json
        [--one-point N] [--times 3] [--plot reports/plot.py]

For each size, writes a file with fixtures/plot/many_runs.py, runs plot.py on
it in a child process and prints the runs, the plots written, the wall time
and the child's peak resident memory (getrusage ru_maxrss of that child).

--compare times `plot.py BASE.json HEAD.json` (a base vs head report), the
whole files or, with --one-point N, the first N benchmarks of families that
sweep nothing (one benchmark each, a Google Benchmark user's typical file),
--times times over, and prints each run and the median. Run it through
`flock /tmp/pmubench-heavy.lock` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GENERATOR = os.path.join(HERE, "fixtures", "plot", "many_runs.py")


def measure(plot: str, path: str, outdir: str) -> tuple[float, int, str]:
    return measure_many(plot, [path], outdir)


def measure_many(plot: str, paths: list[str], outdir: str) -> tuple[float, int, str]:
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, plot, *paths, "-o", outdir],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.monotonic() - start
    out = proc.stdout.read().strip() if proc.stdout else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        out = f"exit {proc.returncode}"
    return elapsed, usage.ru_maxrss // 1024, out


def one_point(data: dict, count: int) -> dict:
    """data with only the runs of its first `count` benchmarks whose family
    has a single benchmark (run_name), aggregates included."""
    names: dict[str, set[str]] = {}
    for run in data["benchmarks"]:
        names.setdefault(run["run_name"].split("/", 1)[0], set()).add(run["run_name"])
    keep = [n for family, runs in names.items() if len(runs) == 1 for n in runs][:count]
    return dict(data, benchmarks=[r for r in data["benchmarks"] if r["run_name"] in keep])


def compare(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for path in args.compare:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if args.one_point:
                data = one_point(data, args.one_point)
            paths.append(os.path.join(tmp, os.path.basename(path)))
            with open(paths[-1], "w", encoding="utf-8") as f:
                json.dump(data, f)
            names = {r["run_name"] for r in data["benchmarks"]}
            print(f"{os.path.basename(path)}: {len(names)} benchmarks, "
                  f"{len({n.split('/', 1)[0] for n in names})} families, "
                  f"{len(data['benchmarks'])} runs")
        print(f"{'run':>4} {'seconds':>8} {'peak MB':>8}  output  ({args.plot})")
        seconds = []
        for n in range(args.times):
            elapsed, peak_mb, out = measure_many(args.plot, paths, os.path.join(tmp, "report"))
            seconds.append(elapsed)
            print(f"{n + 1:>4} {elapsed:>8.1f} {peak_mb:>8}  {out}", flush=True)
        print(f"median {sorted(seconds)[len(seconds) // 2]:.1f} s over {args.times} runs")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="2000,8000,50000")
    parser.add_argument("--shape", choices=("files", "sweep"), default="files")
    parser.add_argument("--plot", default=os.path.join(ROOT, "reports", "plot.py"))
    parser.add_argument("--compare", nargs=2, metavar=("BASE.json", "HEAD.json"))
    parser.add_argument("--one-point", type=int, default=0, metavar="N")
    parser.add_argument("--times", type=int, default=3)
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args)
    print(f"{'runs':>7} {'seconds':>8} {'peak MB':>8}  output  ({args.shape}, {args.plot})")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.runs.split(",")):
            path = os.path.join(tmp, f"runs_{n}.json")
            subprocess.run([sys.executable, GENERATOR, str(n), path, args.shape], check=True)
            with open(path, encoding="utf-8") as f:
                assert len(json.load(f)["benchmarks"]) == n
            seconds, peak_mb, out = measure(args.plot, path, os.path.join(tmp, f"report_{n}"))
            print(f"{n:>7} {seconds:>8.1f} {peak_mb:>8}  {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
