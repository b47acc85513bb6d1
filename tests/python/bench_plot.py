#!/usr/bin/python3
"""Measures reports/plot.py on large generated inputs (not a test: prints
figures, asserts nothing).

    /usr/bin/python3 tests/python/bench_plot.py [--runs 2000,8000,50000]
        [--shape files|sweep] [--plot reports/plot.py]

For each size, writes a file with fixtures/plot/many_runs.py, runs plot.py on
it in a child process and prints the runs, the plots written, the wall time
and the child's peak resident memory (getrusage ru_maxrss of that child).
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
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, plot, path, "-o", outdir],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.monotonic() - start
    out = proc.stdout.read().strip() if proc.stdout else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        out = f"exit {proc.returncode}"
    return elapsed, usage.ru_maxrss // 1024, out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="2000,8000,50000")
    parser.add_argument("--shape", choices=("files", "sweep"), default="files")
    parser.add_argument("--plot", default=os.path.join(ROOT, "reports", "plot.py"))
    args = parser.parse_args(argv)
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
