"""Synthetic pmubench runs for the history's tests and benchmark: Google
Benchmark JSON as pmubench writes it, native or simulated (callgrind), with
the values the caller plants."""

from __future__ import annotations

import json
import time

CALLGRIND_CONTEXT = {
    "pmubench_backend": "callgrind", "pmubench_valgrind": "valgrind-3.19.0",
    "pmubench_cache_geometry": "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"}


def context(when: float, backend: str = "callgrind", cpus: int = 2, **extra: str) -> dict:
    ctx = {"date": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(when)),
           "host_name": "runner", "executable": "benches/all", "num_cpus": cpus,
           "mhz_per_cpu": 2000, "cpu_scaling_enabled": False,
           "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1},
                      {"type": "Unified", "level": 2, "size": 1048576, "num_sharing": 1}],
           "load_avg": [0.5, 0.5, 0.5], "library_build_type": "release",
           "pmubench_pmus": "breakpoint,msr,software", "pmubench_version": "0.1.0"}
    if backend == "callgrind":
        ctx.update(CALLGRIND_CONTEXT)
    else:
        ctx["pmubench_backend"] = "perf_event"
    ctx.update(extra)
    return ctx


def run(when: float, values: dict[str, dict[str, list[float]]], backend: str = "callgrind",
        **extra: str) -> dict:
    """A run file: values[benchmark][metric] is every repetition's value."""
    benchmarks = []
    for family, (name, metrics) in enumerate(values.items()):
        reps = max(len(v) for v in metrics.values())
        for rep in range(reps):
            obj = {"name": name, "family_index": family, "per_family_instance_index": 0,
                   "run_name": name, "run_type": "iteration", "repetitions": reps,
                   "repetition_index": rep, "threads": 1, "iterations": 1000,
                   "time_unit": "ns"}
            for metric, reps_values in metrics.items():
                obj[metric] = reps_values[rep]
            obj.setdefault("real_time", 1.0)
            obj.setdefault("cpu_time", 1.0)
            benchmarks.append(obj)
    return {"context": context(when, backend, **extra), "benchmarks": benchmarks}


def write(path: str, obj: dict) -> str:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)
    return path
