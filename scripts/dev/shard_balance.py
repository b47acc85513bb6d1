#!/usr/bin/python3
"""How even the shards of a suite are: runs each of N shards of a pmubench
binary under --pmubench_simulate, one after the other, in registration
order (--pmubench_shard=I/N) and balanced by a previous run's costs
(--pmubench_shard_costs=RUN.json), and prints each shard's CPU time (the
shard's whole command, valgrind included), its cases, and the longest
shard against the mean.

    cd scripts && /usr/bin/python3 -m dev.shard_balance ../build/cmake/benches/all
        --costs RUN.json [--shards 4] [--filter REGEX] [--jobs 1]

RUN.json is any earlier run of the same cases (e.g. the whole suite with
--pmubench_simulate --benchmark_out=RUN.json). Each shard runs with
--pmubench_jobs=JOBS (1: its CPU time is its work, whatever else the
machine does). Figures to read, not limits to test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile


def shard_command(binary: str, index: int, shards: int, costs: str | None,
                  filter_regex: str, jobs: int, out: str) -> list[str]:
    """The command that runs shard `index` (1-based) of `shards`."""
    cmd = [binary, "--pmubench_simulate", f"--pmubench_jobs={jobs}",
           f"--pmubench_shard={index}/{shards}",
           f"--benchmark_filter={filter_regex}",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    if costs is not None:
        cmd.append(f"--pmubench_shard_costs={costs}")
    return cmd


def children_cpu() -> float:
    """User and system seconds of the waited-for child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cases_in(path: str) -> int:
    """How many cases (iteration rows' names) a run's JSON file reports."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f).get("benchmarks", [])
    return len({r["name"] for r in rows if r.get("run_type") == "iteration"})


def spread(seconds: list[float]) -> tuple[float, float]:
    """(mean, longest / mean) of the shards' times."""
    mean = sum(seconds) / len(seconds)
    return mean, (max(seconds) / mean if mean > 0 else 0.0)


def run_shards(args: argparse.Namespace, costs: str | None,
               tmp: str) -> list[tuple[float, int]]:
    """(CPU seconds, cases) of each shard, run one after the other."""
    shards = []
    for index in range(1, args.shards + 1):
        out = os.path.join(tmp, f"shard{index}.json")
        before = children_cpu()
        subprocess.run(shard_command(args.binary, index, args.shards, costs,
                                     args.filter, args.jobs, out),
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shards.append((children_cpu() - before, cases_in(out)))
    return shards


def report(label: str, shards: list[tuple[float, int]]) -> str:
    """One line per shard, then the spread."""
    lines = [f"{label}:"]
    for index, (cpu, cases) in enumerate(shards, 1):
        lines.append(f"  shard {index}: {cpu:7.1f} s CPU, {cases} cases")
    mean, ratio = spread([cpu for cpu, _ in shards])
    lines.append(f"  mean {mean:.1f} s; longest {ratio:.2f} x the mean "
                 f"({(ratio - 1) * 100:+.0f}%)")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--costs", required=True,
                        help="a previous run's JSON (--pmubench_shard_costs)")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--filter", default=".", help="--benchmark_filter")
    parser.add_argument("--jobs", type=int, default=1, help="--pmubench_jobs per shard")
    args = parser.parse_args(argv)
    if not os.access(args.binary, os.X_OK):
        parser.error(f"{args.binary}: not an executable; build it first")
    if not os.path.isfile(args.costs):
        parser.error(f"--costs {args.costs}: no such file; give an earlier run's "
                     "--benchmark_out JSON")
    if args.shards < 2 or args.jobs < 1:
        parser.error("--shards must be 2 or more and --jobs 1 or more")
    with tempfile.TemporaryDirectory(prefix="pmubench-shards.") as tmp:
        print(report("registration order", run_shards(args, None, tmp)))
        print(report("balanced by --pmubench_shard_costs",
                     run_shards(args, os.path.abspath(args.costs), tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
