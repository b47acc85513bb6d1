"""Load and validate Google Benchmark JSON as pmubench writes it.

Shared by scripts/compare.py and reports/plot.py. Pure functions over parsed
JSON, plus `load()` that reads a file; every problem is a `BadInput` whose
message names the file and says what is wrong.

    bench = load("run.json")
    for run in bench.runs:
        run.name, run.family, run.args, run.metrics["instructions"]

A run's metrics are real_time, cpu_time (in the file's time_unit), the rates
Google Benchmark writes (items_per_second, bytes_per_second) and every other
numeric field: pmubench's counters, named exactly as the user spelled the
event ("instructions", "msr/tsc/"), and its derived metrics ("IPC",
"*-ratio", "pmu_running_fraction").
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

# Fields of a Google Benchmark 1.7 run object that are not metrics.
STRUCTURAL_FIELDS = frozenset({
    "name", "family_index", "per_family_instance_index", "run_name",
    "run_type", "repetitions", "repetition_index", "threads", "iterations",
    "time_unit", "aggregate_name", "aggregate_unit", "error_occurred",
    "error_message", "label", "big_o", "rms", "cpu_coefficient",
    "real_coefficient", "complexity_n",
})

TIME_METRICS = ("real_time", "cpu_time")
RATE_METRICS = ("items_per_second", "bytes_per_second")
# Derived metrics pmubench writes where a larger value is better.
_HIGHER_IS_BETTER = frozenset({"IPC", "pmu_running_fraction"}) | set(RATE_METRICS)

TIME_UNITS_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

# Name components Google Benchmark appends that are not arguments.
_NON_ARG_COMPONENT = re.compile(
    r"^(repeats|threads|min_time|min_warmup_time|iterations):|"
    r"^(real_time|process_time|manual_time)$")


class BadInput(Exception):
    """Input that cannot be used; the message names the file and the fix."""


@dataclass
class Run:
    name: str                  # full name, aggregates carry "_mean" etc.
    run_name: str              # name without the aggregate suffix
    run_type: str              # "iteration" or "aggregate"
    aggregate_name: str        # "" for iterations; "mean", "median", ...
    repetition_index: int      # -1 for aggregates
    repetitions: int
    threads: int
    iterations: float
    time_unit: str
    metrics: dict[str, float] = field(default_factory=dict)
    label: str = ""
    error_message: str = ""    # non-empty when the run failed

    @property
    def failed(self) -> bool:
        return bool(self.error_message)

    @property
    def family(self) -> str:
        return family_of(self.run_name)

    @property
    def args(self) -> list[tuple[str, str]]:
        return args_of(self.run_name)


@dataclass
class BenchFile:
    path: str
    context: dict[str, Any]
    runs: list[Run]

    def metric_names(self) -> list[str]:
        """Every metric of any run, time first, then in first-seen order."""
        seen: dict[str, None] = {}
        for run in self.runs:
            for name in run.metrics:
                seen.setdefault(name, None)
        ordered = [m for m in TIME_METRICS if m in seen]
        return ordered + [m for m in seen if m not in TIME_METRICS]


def family_of(run_name: str) -> str:
    """'BM_Chase/4096/threads:2' -> 'BM_Chase'."""
    return run_name.split("/", 1)[0]


def args_of(run_name: str) -> list[tuple[str, str]]:
    """Arguments of a run name as (name, value); name is '' when unnamed.

    'BM_Chase/4096/8/threads:2' -> [('', '4096'), ('', '8')];
    'BM_Map/size:64' -> [('size', '64')].
    """
    result = []
    for part in run_name.split("/")[1:]:
        if not part or _NON_ARG_COMPONENT.match(part):
            continue
        key, sep, value = part.partition(":")
        result.append((key, value) if sep else ("", part))
    return result


def is_higher_better(metric: str) -> bool:
    """True for rates and IPC; times and event counts are better lower."""
    return metric in _HIGHER_IS_BETTER


def is_derived(metric: str) -> bool:
    return metric in ("IPC", "pmu_running_fraction") or metric.endswith("-ratio")


def _number(value: Any, path: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(f"{path}: {where} is not a number ({value!r})")
    if math.isnan(value) or math.isinf(value):
        raise BadInput(
            f"{path}: {where} is {value}; re-run the benchmark (a NaN or "
            "infinite value means a counter or timer failed)")
    return float(value)


def parse_run(obj: Any, path: str, index: int) -> Run:
    """Validates one element of "benchmarks" and returns it as a Run."""
    where = f"benchmarks[{index}]"
    if not isinstance(obj, dict):
        raise BadInput(f"{path}: {where} is not an object")
    for key in ("name", "run_type", "time_unit"):
        if key not in obj and not (key == "time_unit" and obj.get("error_occurred")):
            raise BadInput(
                f"{path}: {where} has no \"{key}\"; not Google Benchmark JSON "
                "(write it with --benchmark_out=FILE --benchmark_out_format=json)")
    name = obj["name"]
    time_unit = obj.get("time_unit", "ns")
    if time_unit not in TIME_UNITS_NS:
        raise BadInput(f"{path}: {where} ({name}) has unknown time_unit "
                       f"{time_unit!r}; expected one of {sorted(TIME_UNITS_NS)}")
    run = Run(
        name=name,
        run_name=obj.get("run_name", name),
        run_type=obj["run_type"],
        aggregate_name=obj.get("aggregate_name", ""),
        repetition_index=int(_number(obj.get("repetition_index", -1), path,
                                     f"{where} ({name}) \"repetition_index\"")),
        repetitions=int(_number(obj.get("repetitions", 1), path,
                                f"{where} ({name}) \"repetitions\"")),
        threads=int(_number(obj.get("threads", 1), path,
                            f"{where} ({name}) \"threads\"")),
        iterations=_number(obj.get("iterations", 0), path,
                           f"{where} ({name}) \"iterations\""),
        time_unit=time_unit,
        label=str(obj.get("label", "")),
        error_message=(str(obj.get("error_message", "error"))
                       if obj.get("error_occurred") else ""),
    )
    if run.failed:
        return run  # a failed run's numbers are zeros, not measurements
    for key, value in obj.items():
        if key in STRUCTURAL_FIELDS:
            continue
        if (run.aggregate_name == "cv" and isinstance(value, float)
                and math.isnan(value)):
            # Google Benchmark writes the cv of a metric whose mean is 0 (a
            # counter that never fired) as NaN (stddev / mean = 0 / 0): that
            # is "no spread", not a failed measurement, so leave it out.
            continue
        run.metrics[key] = _number(value, path, f"{where} ({name}) field \"{key}\"")
    return run


def parse(obj: Any, path: str) -> BenchFile:
    """Validates parsed JSON as a Google Benchmark result file."""
    if not isinstance(obj, dict) or "benchmarks" not in obj:
        raise BadInput(
            f"{path}: not Google Benchmark JSON (no top-level \"benchmarks\"); "
            "write it with --benchmark_out=FILE --benchmark_out_format=json")
    benchmarks = obj["benchmarks"]
    if not isinstance(benchmarks, list):
        raise BadInput(f"{path}: \"benchmarks\" is not a list")
    if not benchmarks:
        raise BadInput(f"{path}: holds no benchmark runs (empty \"benchmarks\"); "
                       "check --benchmark_filter matched something")
    context = obj.get("context", {})
    if not isinstance(context, dict):
        raise BadInput(f"{path}: \"context\" is not an object")
    runs = [parse_run(b, path, i) for i, b in enumerate(benchmarks)]
    return BenchFile(path=path, context=context, runs=runs)


def load(path: str) -> BenchFile:
    """Reads and validates one file; raises BadInput naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a directory, expected a JSON file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read: {e}") from None
    if not text.strip():
        raise BadInput(f"{path}: is empty; was the benchmark run interrupted?")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not valid JSON (line {e.lineno}, column "
                       f"{e.colno}: {e.msg})") from None
    return parse(obj, path)


def to_ns(value: float, unit: str) -> float:
    return value * TIME_UNITS_NS[unit]
