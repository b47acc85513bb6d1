"""Runs a Google Benchmark binary and its pmubench conversion, and checks
that the conversion is a drop-in: both exit 0, they report the same runs
(names, in order, errors included), every run of a PMU_BENCHMARK case
carries counters the original has not, and a run the converter left to
Google Benchmark (benchmark::RegisterBenchmark) carries none.

usage: check_run.py GB_BINARY PMUBENCH_BINARY
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

FLAGS = ["--benchmark_min_time=0.01", "--benchmark_out_format=json"]
# Cases the converter leaves to Google Benchmark (gbench/register_benchmark.cc).
TIME_ONLY_PREFIXES = ("BM_AtRunTime/",)


def run(binary: str, out: str) -> dict:
    proc = subprocess.run([binary, *FLAGS, f"--benchmark_out={out}"],
                          capture_output=True, text=True, timeout=240)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"check_run: {binary} exited {proc.returncode}")
    with open(out) as f:
        return json.load(f)


def main(gb_binary: str, pmu_binary: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        gb = run(gb_binary, os.path.join(tmp, "gb.json"))
        pmu = run(pmu_binary, os.path.join(tmp, "pmu.json"))
    errors = []
    gb_names = [b["name"] for b in gb["benchmarks"]]
    pmu_names = [b["name"] for b in pmu["benchmarks"]]
    if gb_names != pmu_names:
        errors.append(f"runs differ:\n  Google Benchmark: {gb_names}\n  pmubench:         {pmu_names}")
    if not gb_names:
        errors.append("no runs at all")
    if "pmubench_version" not in pmu["context"]:
        errors.append(f"no pmubench context in the converted run: {sorted(pmu['context'])}")
    gb_runs = {b["name"]: b for b in gb["benchmarks"]}
    counted = 0
    for b in pmu["benchmarks"]:
        name = b["name"]
        if b.get("run_type") == "aggregate" or name not in gb_runs:
            continue
        if b.get("error_occurred") != gb_runs[name].get("error_occurred"):
            errors.append(f"{name}: error_occurred {b.get('error_occurred')} vs "
                          f"{gb_runs[name].get('error_occurred')} in Google Benchmark")
            continue
        if b.get("error_occurred"):
            continue
        extra = sorted(set(b) - set(gb_runs[name]))
        if name.startswith(TIME_ONLY_PREFIXES):
            if extra:
                errors.append(f"{name}: a Google Benchmark case, yet it has {extra}")
        elif not extra:
            errors.append(f"{name}: no counters: {sorted(b)}")
        else:
            counted += 1
    for e in errors:
        print("check_run:", e, file=sys.stderr)
    print(f"check_run: {len(pmu_names)} runs reported by both, {counted} counted, "
          f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
