#!/usr/bin/python3
"""compare.py's output pinned byte for byte (issue 43, item 2): the cases
test_compare_golden.py runs, the mid-size pairs it generates, and the
expected outputs under tests/python/fixtures/compare_golden/.

Each case is two input files (fixtures of tests/python/fixtures/, or a pair
made here by a seeded generator) and compare.py's arguments; each is run in
text, JSON and markdown. The expected outputs were written by compare.py as
it was before it was made faster, with

    /usr/bin/python3 tests/python/compare_golden.py --write

Rewrite them only for a change meant to change compare's output, and say so
in the commit.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "python" / "fixtures"
EXPECTED = FIXTURES / "compare_golden"
COMPARE = REPO_ROOT / "scripts" / "compare.py"
FORMATS = ("text", "json", "markdown")

GENERATED = "generated"
ROUNDS = "rounds"

# name: (baseline, contender, extra arguments). A baseline or contender is a
# path under tests/python/fixtures, or a generated pair's side
# ("generated:base").
CASES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "rerun": ("compare/base.json", "compare/rerun.json", ()),
    "time_noise": ("compare/base.json", "compare/time_noise.json", ()),
    "instr_regression": ("compare/instr_base.json", "compare/instr_regression.json", ()),
    "instr_improvement": ("compare/instr_base.json", "compare/instr_improvement.json",
                          ("--threshold", "instructions=2", "--threshold", "time=off")),
    "time_regression": ("compare/base.json", "compare/time_regression.json", ()),
    "missing_extra": ("compare/base.json", "compare/missing_extra.json", ("--strict",)),
    "failed_in_contender": ("compare/base.json", "compare/failed_in_contender.json", ()),
    "aggregates": ("compare/aggregates_base.json", "compare/aggregates_regression.json", ()),
    "single_vs_reps": ("compare/single_base.json", "compare/base.json", ()),
    "callgrind_regression": ("compare/callgrind_base.json",
                             "compare/callgrind_regression.json", ()),
    "callgrind_rerun": ("compare/callgrind_base.json", "compare/callgrind_rerun.json", ()),
    "moved_longer": ("compare/moved_base.json", "compare/moved_longer.json", ()),
    "moved_inserted": ("compare/moved_base.json", "compare/moved_inserted.json", ()),
    "complexity": ("complexity/base.json", "complexity/contender.json", ()),
    "allocations": ("allocations/base.json", "allocations:head", ()),
    "generated": ("generated:base", "generated:head", ()),
    "generated_metrics": ("generated:base", "generated:head",
                          ("--metrics", "time", "--metrics", "*-faults",
                           "--alpha", "0.1", "--threshold", "cpu_time=3")),
    "rounds": ("rounds:base", "rounds:head", ()),
    "few_rounds": ("rounds2:base", "rounds2:head", ()),
}


def _context(**extra) -> dict:
    return {"date": "2026-11-28T12:00:00+00:00", "host_name": "vm", "num_cpus": 2,
            "mhz_per_cpu": 2000, "library_build_type": "release",
            "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1}],
            "load_avg": [1.0, 1.0, 1.0], "pmubench_version": "0.1.0", **extra}


def _run(name: str, index: int, reps: int, metrics: dict, family: int,
         instance: int) -> dict:
    return {"name": name, "family_index": family, "per_family_instance_index": instance,
            "run_name": name, "run_type": "iteration", "repetitions": reps,
            "repetition_index": index, "threads": 1, "iterations": 1000,
            "time_unit": "ns", **metrics}


def _aggregates(name: str, reps: int, values: list[dict], family: int,
                instance: int) -> list[dict]:
    """Google Benchmark's mean, median, stddev and cv of the runs' metrics."""
    out = []
    keys = list(values[0])
    for agg in ("mean", "median", "stddev", "cv"):
        metrics = {}
        for k in keys:
            xs = sorted(v[k] for v in values)
            mean = sum(xs) / len(xs)
            sd = (sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5
            metrics[k] = {"mean": mean, "median": xs[len(xs) // 2], "stddev": sd,
                          "cv": sd / mean if mean else 0.0}[agg]
        run = _run(f"{name}_{agg}", -1, reps, metrics, family, instance)
        run.update({"run_name": name, "run_type": "aggregate", "aggregate_name": agg,
                    "aggregate_unit": "percentage" if agg == "cv" else "time"})
        del run["repetition_index"]
        out.append(run)
    return out


def _metrics(rng: random.Random, kind: int, b: int, head: bool) -> dict:
    """One repetition's metrics for benchmark b of the generated pair."""
    slow = 1.3 if head and kind == 1 else 1.0
    more = 1.05 if head and kind == 0 and b % 3 == 0 else 1.0
    t = (20.0 + b) * slow * rng.uniform(0.9, 1.1)        # noisy
    m = {"real_time": t * rng.uniform(1.0, 1.02), "cpu_time": t,
         "task-clock": t * 0.99, "page-faults": float(b % 4 == 0),
         "context-switches": float(rng.random() < 0.1),
         "pmu_running_fraction": 1.0}
    if kind in (0, 5, 6):
        m["instructions"] = (500.0 + 7 * b) * more
        m["cycles"] = m["instructions"] / rng.uniform(1.5, 2.5)
        m["IPC"] = m["instructions"] / m["cycles"]
    if kind == 0:
        m.update({"allocs_per_iter": 2.0 + (head and b % 4 == 0),
                  "alloc_bytes_per_iter": 64.0, "frees_per_iter": 2.0,
                  "max_bytes_used": 128.0})
    if kind == 5:
        m["items_per_second"] = 1e9 / t
    if kind == 6:
        m["pmubench_layout_sensitive"] = True
    return m


def _profile(b: int, head: bool) -> dict:
    """An estimated (sampled) profile: where the instructions went."""
    shares = {"Work(int)": 0.5, "Helper<int>::step()": 0.3, "memcpy": 0.2}
    if head:
        shares = {"Work(int)": 0.45, "Helper<int>::step()": 0.4, "memcpy": 0.15}
    samples = 1000 + b
    return {"pmubench_profile": [{"symbol": s, "samples": int(samples * f), "share": f}
                                 for s, f in shares.items()],
            "pmubench_profile_lines": [
                {"symbol": "Work(int)", "file": "/src/work.cc", "line": 10 + head,
                 "samples": int(samples * 0.2), "share": 0.2}],
            "pmubench_profile_event": "instructions@100000",
            "pmubench_profile_samples": samples}


def _name(b: int) -> str:
    odd = {7: "BM_Odd/a|b", 15: "BM_Ctl\x1b[31m/1", 23: "BM_Ünï/2"}
    return odd.get(b, f"BM_Gen{b // 10}/{b % 10}")


def generated_pair(head: bool, benchmarks: int = 64) -> dict:
    """A mid-size file: repetitions (5, 3, one run, aggregates only, runs
    with aggregates), missing benchmarks and metrics on either side, a
    failed run, noisy times, exact instructions, allocation fields, IPC and
    a rate, layout-sensitive rows, odd names, sampled profiles."""
    rng = random.Random(4302 if head else 4301)
    runs = []
    for b in range(benchmarks):
        if (head and b in (5, 50)) or (not head and b in (9, 58)):
            continue                                  # only on one side
        kind, name = b % 8, _name(b)
        reps = {2: 3, 3: 1}.get(kind, 5)
        values = [_metrics(rng, kind, b, head) for _ in range(reps)]
        if head and b == 33:
            values = [{k: v for k, v in m.items() if k != "page-faults"} for m in values]
        if head and b == 41:
            runs.append({**_run(name, 0, 1, {}, b, 0), "error_occurred": True,
                         "error_message": "out of memory"})
            continue
        if kind != 4:
            runs += [_run(name, i, reps, m, b, 0) for i, m in enumerate(values)]
        if kind in (4, 7):
            plain = [{k: v for k, v in m.items() if k != "pmubench_layout_sensitive"}
                     for m in values]
            runs += _aggregates(name, reps, plain, b, 0)
        if kind == 0 and b % 3 == 0 and b < 30:
            runs[-1].update(_profile(b, head))
    return {"context": _context(), "benchmarks": runs}


def rounds_pair(head: bool, benchmarks: int = 24, rounds: int = 4) -> dict:
    """A file merged from `rounds` runs of 3 repetitions each (as
    scripts/merge.py writes one): times tested per round."""
    rng = random.Random(4312 if head else 4311)
    runs = []
    for b in range(benchmarks):
        name = f"BM_Round{b // 6}/{b % 6}"
        reps = 3 * rounds
        for i in range(reps):
            shift = rng.uniform(0.95, 1.05) if i % 3 == 0 else 1.0
            t = (50.0 + b) * (1.2 if head and b % 5 == 0 else 1.0) * shift * rng.uniform(0.99, 1.01)
            runs.append(_run(name, i, reps, {
                "real_time": t, "cpu_time": t, "instructions": 900.0 + b,
                "page-faults": 0.0}, b, 0))
    return {"context": _context(pmubench_merged_files=str(rounds)), "benchmarks": runs}


def _allocations_head() -> dict:
    """The allocations fixture with one allocation of 17 bytes more per
    iteration in BM_AllocMakeUnique (as test_allocation_gate.py makes it)."""
    edited = json.loads((FIXTURES / "allocations" / "base.json").read_text())
    for run in edited["benchmarks"]:
        if run["run_name"] == "BM_AllocMakeUnique" and run.get(
                "aggregate_name", "mean") in ("mean", "median"):
            run["allocs_per_iter"] += 1
            run["alloc_bytes_per_iter"] += 17
            run["frees_per_iter"] += 1
    return edited


def _input(spec: str, directory: Path, as_name: str) -> str:
    """Puts one input of a case into directory as as_name; returns as_name."""
    makers = {"generated:base": lambda: generated_pair(False),
              "generated:head": lambda: generated_pair(True),
              "rounds:base": lambda: rounds_pair(False),
              "rounds:head": lambda: rounds_pair(True),
              "rounds2:base": lambda: rounds_pair(False, rounds=2),
              "rounds2:head": lambda: rounds_pair(True, rounds=2),
              "allocations:head": _allocations_head}
    if spec in makers:
        (directory / as_name).write_text(json.dumps(makers[spec](), indent=1))
    else:
        shutil.copyfile(FIXTURES / spec, directory / as_name)
    return as_name


def run_case(name: str, fmt: str, compare: Path = COMPARE) -> dict[str, str]:
    """compare.py on one case in one format, from a temp dir holding the
    inputs as base.json and head.json (so the paths it prints are the same
    in every checkout): {"stdout", "exit", and "full" for markdown's
    --full-output}."""
    base, head, extra = CASES[name]
    directory = Path(tempfile.mkdtemp(prefix="pmubench-golden-"))
    try:
        args = [_input(base, directory, "base.json"), _input(head, directory, "head.json"),
                *extra, "--format", fmt]
        if fmt == "markdown":
            args += ["--full-output", "full.md"]
        if fmt == "text":
            args += ["--color", "always" if name == "generated" else "never"]
        proc = subprocess.run(["/usr/bin/python3", str(compare), *args], cwd=directory,
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLUMNS": "100"})
        out = {"stdout": proc.stdout, "stderr": proc.stderr, "exit": f"{proc.returncode}\n"}
        if fmt == "markdown" and (directory / "full.md").exists():
            out["full"] = (directory / "full.md").read_text()
        return out
    finally:
        shutil.rmtree(directory)


def expected_files(name: str, fmt: str) -> dict[str, Path]:
    """Where a case's expected outputs live, by the keys run_case returns."""
    suffix = {"text": "txt", "json": "json", "markdown": "md"}[fmt]
    return {"stdout": EXPECTED / f"{name}.{suffix}",
            "stderr": EXPECTED / f"{name}.{fmt}.stderr",
            "exit": EXPECTED / f"{name}.{fmt}.exit",
            **({"full": EXPECTED / f"{name}.full.md"} if fmt == "markdown" else {})}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="write the expected outputs from this checkout's compare.py")
    args = parser.parse_args()
    if not args.write:
        parser.error("nothing to do: --write writes the expected outputs")
    EXPECTED.mkdir(exist_ok=True)
    for name in CASES:
        for fmt in FORMATS:
            out = run_case(name, fmt)
            for key, path in expected_files(name, fmt).items():
                if key in out and (out[key] or key != "stderr"):
                    path.write_text(out[key])
            print(f"{name} {fmt}: exit {out['exit'].strip()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
