"""Load and validate Google Benchmark JSON as pmubench writes it.

Shared by scripts/compare.py, scripts/merge.py and reports/plot.py: the one
place input is checked. Pure functions over parsed JSON, plus `load()` that
reads a file; every problem is a `BadInput` whose message names the file and
says what is wrong: nesting deeper than any Google Benchmark file, numbers
beyond a double, NaN/infinity, a field of the wrong type, negative times,
threads < 1, an unknown run_type. ->Complexity()'s BigO and RMS aggregates
are checked and left out of `runs`.

    bench = load("run.json")
    for run in bench.runs:
        run.name, run.family, run.args, run.metrics["instructions"]

A run's metrics are real_time, cpu_time (in the file's time_unit), the rates
Google Benchmark writes (items_per_second, bytes_per_second) and every other
numeric field: pmubench's counters, named exactly as the user spelled the
event ("instructions", "msr/tsc/"), and its derived metrics ("IPC",
"*-ratio", "pmu_running_fraction"), each with the user's modifier
("IPC:u"); base_name() is what every classification looks at.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from pmubench.runs import filetext, lazyruns

# Fields of a Google Benchmark 1.7 run object that are not metrics.
STRUCTURAL_FIELDS = frozenset({
    "name", "family_index", "per_family_instance_index", "run_name",
    "run_type", "repetitions", "repetition_index", "threads", "iterations",
    "time_unit", "aggregate_name", "aggregate_unit", "error_occurred",
    "error_message", "label", "big_o", "rms", "cpu_coefficient",
    "real_coefficient", "complexity_n",
    # pmubench's: the case's whole wall time in its worker (setup, warm-up
    # and callgrind's dumps included), for --pmubench_shard_costs; a fact
    # of the run's scheduling, not a metric of the case.
    "pmubench_case_seconds",
})
# pmubench's --pmubench_profile fields (pmubench_profile: a list of
# {symbol, samples, share}; pmubench_profile_samples, ...): facts of the
# untimed profiling pass, not metrics of the measured run.
PROFILE_FIELD_PREFIX = "pmubench_profile"
# A run's true/false facts, not metrics: pmubench_layout_sensitive (the
# case's counts move with layout; verdicts.metrics judges them noisy). true,
# or the count the runner's --pmubench_layout_check writes (how many of the
# row's threads saw the count move; 0 or absent: not marked).
LAYOUT_SENSITIVE_FIELD = "pmubench_layout_sensitive"
FLAG_FIELDS = frozenset({LAYOUT_SENSITIVE_FIELD})


def _is_flag_value(value) -> bool:
    """true/false, or a finite count of 0 or more."""
    if isinstance(value, bool):
        return True
    return type(value) in (int, float) and value - value == 0 and value >= 0


def is_layout_sensitive(raw: dict | None) -> bool:
    """True when a run's JSON object says its counts move with layout."""
    value = (raw or {}).get(LAYOUT_SENSITIVE_FIELD)
    return value is True or (_is_flag_value(value) and
                             not isinstance(value, bool) and value > 0)

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


@dataclass(slots=True)
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
    # Which registration wrote the run (Google Benchmark 1.7's family_index
    # and per_family_instance_index; None in files without them). Two
    # registrations can give one name (->Threads(8) and ->ThreadRange(1, 32)
    # both give "BM_X/threads:8"): these tell them apart.
    family_index: int | None = None
    instance_index: int | None = None
    # The JSON object the run was read from (scripts/merge.py writes it back).
    raw: dict | None = field(default=None, repr=False, compare=False)

    @property
    def registration(self) -> tuple[int, int] | None:
        """(family_index, per_family_instance_index), or None when the file
        does not say."""
        if self.family_index is None and self.instance_index is None:
            return None
        return (self.family_index if self.family_index is not None else -1,
                self.instance_index if self.instance_index is not None else -1)

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
    # A list, or for a file of one shape a lazyruns.LazyRuns: the same
    # list, its Runs made when someone first asks for one.
    runs: list[Run]
    complexity_fits: int = 0   # BigO and RMS aggregates left out
    # Each metric's values over `runs`, in order, when load found every run
    # of one shape (the same fields, every metric a float): what a
    # comparison reads a column at a time. Kept with the list it describes:
    # metric_columns() gives them only while `runs` is that list, unchanged
    # in length.
    shared_columns: tuple[list[Run], dict[str, list[float]]] | None = field(
        default=None, repr=False, compare=False)

    def metric_columns(self) -> dict[str, list[float]] | None:
        """Each metric's values over the runs, in run order; None unless
        every run has every metric (see shared_columns)."""
        if self.shared_columns is None:
            return None
        runs, columns = self.shared_columns
        length = len(next(iter(columns.values()), ()))
        return columns if runs is self.runs and len(runs) == length else None

    def metric_names(self) -> list[str]:
        """Every metric of any run, time first, then in first-seen order."""
        # A file of one shape whose runs nobody has asked for: every run
        # has the columns' metrics, in their order.
        seen = self.runs.columns() if isinstance(self.runs, lazyruns.LazyRuns) else None
        if seen is None:
            seen = dict.fromkeys(itertools.chain.from_iterable(r.metrics for r in self.runs))
        ordered = [m for m in TIME_METRICS if m in seen]
        return ordered + [m for m in seen if m not in TIME_METRICS]

    def has_labels(self) -> bool:
        """True when a run has a label; read from the label column while
        the runs of a file of one shape are not made (lazyruns)."""
        runs = self.runs
        fields = runs.fields() if isinstance(runs, lazyruns.LazyRuns) else None
        return any(fields["label"]) if fields is not None else any(r.label for r in runs)


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


# A metric's name as pmubench writes it: the event spec as the user spelled
# it, with an optional privilege modifier ("instructions:u", "cycles:uk"), in
# sysfs form with the modifier after the slash or after a colon
# ("cpu/instructions/u", "msr/tsc/", "armv8_pmuv3_0/inst_retired/:k"); the
# derived metrics carry the modifier of their events ("IPC:u",
# "branch-miss-ratio:k"). perf's modifier letters: perf-list(1) "EVENT MODIFIERS".
_MODIFIER = re.compile(r":[ukhHGpPS]+$")
_PMU_SLASH = re.compile(r"^([\w.-]+)/(.*)/[ukhHGpPS]*$")


def base_name(metric: str) -> str:
    """The name a metric is classified by: modifier and PMU prefix removed.

    'IPC:u' -> 'IPC'; 'cpu/instructions/u' -> 'instructions';
    'msr/tsc/' -> 'tsc'; 'cpu/event=0xc0/u' -> 'cpu/event=0xc0/' (terms,
    no name to classify by).
    Every classification (direction, derived, thresholds, units) goes
    through this one function.
    """
    name = _MODIFIER.sub("", metric)
    m = _PMU_SLASH.match(name)
    if m:
        pmu, inner = m.groups()
        name = inner if "=" not in inner else f"{pmu}/{inner}/"
    return name


# PMU prefixes of counts a simulator wrote (pmubench's callgrind backend:
# "callgrind/instructions/", "callgrind/LLC-load-misses/",
# "callgrind/branch-miss-ratio/"): bit-identical run to run.
SIMULATED_PMUS = ("callgrind",)


def is_simulated(metric: str) -> bool:
    """True for a count a simulator wrote ('callgrind/instructions/'):
    deterministic whatever its class."""
    m = _PMU_SLASH.match(_MODIFIER.sub("", metric))
    return bool(m) and m.group(1) in SIMULATED_PMUS


def is_higher_better(metric: str) -> bool:
    """True for rates and IPC; times and event counts are better lower."""
    return base_name(metric) in _HIGHER_IS_BETTER


def is_derived(metric: str) -> bool:
    base = base_name(metric)
    return base in ("IPC", "pmu_running_fraction") or base.endswith("-ratio")


def _where(index: int, obj: dict) -> str:
    name = obj.get("name")
    return f"benchmarks[{index}]" + (f" ({name})" if isinstance(name, str) else "")


def _number(value: Any, path: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(f"{path}: {where} is not a number ({_short(value)})")
    try:
        number = float(value)
    except OverflowError:
        raise BadInput(f"{path}: {where} is an integer beyond the range of a "
                       "double; re-run the benchmark") from None
    if math.isnan(number) or math.isinf(number):
        raise BadInput(
            f"{path}: {where} is {number}; re-run the benchmark (a NaN or "
            "infinite value means a counter or timer failed)")
    return number


def _integer(value: Any, path: str, where: str, minimum: int) -> int:
    number = _number(value, path, where)
    if number != int(number):
        raise BadInput(f"{path}: {where} is {number:g}, not an integer")
    if number < minimum:
        raise BadInput(f"{path}: {where} is {number:g}; must be at least {minimum}")
    return int(number)


def _string(obj: dict, key: str, path: str, where: str, default: str | None = None) -> str:
    if key not in obj:
        if default is None:
            raise BadInput(
                f"{path}: {where} has no \"{key}\"; not Google Benchmark JSON "
                "(write it with --benchmark_out=FILE --benchmark_out_format=json)")
        return default
    value = obj[key]
    if not isinstance(value, str):
        raise BadInput(f"{path}: {where} \"{key}\" is not a string ({_short(value)})")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Google Benchmark's aggregates that fit a complexity curve over a family
# (->Complexity()): "BigO" holds cpu_coefficient, real_coefficient and big_o,
# "RMS" holds rms and no time_unit. They are not measurements of one
# benchmark: both tools leave them out (BenchFile.complexity_fits counts them).
COMPLEXITY_AGGREGATES = ("BigO", "RMS")


def _check_complexity_fit(obj: dict, path: str, where: str, aggregate: str) -> None:
    if aggregate == "BigO":
        for key in ("cpu_coefficient", "real_coefficient"):
            _number(obj.get(key), path, f"{where} \"{key}\"")
        _string(obj, "big_o", path, where)
        _time_unit(obj, path, where)
    else:
        if _number(obj.get("rms"), path, f"{where} \"rms\"") < 0:
            raise BadInput(f"{path}: {where} \"rms\" is negative")


def _time_unit(obj: dict, path: str, where: str) -> str:
    unit = _string(obj, "time_unit", path, where)
    if unit not in TIME_UNITS_NS:
        raise BadInput(f"{path}: {where} has unknown time_unit "
                       f"{unit!r}; expected one of {sorted(TIME_UNITS_NS)}")
    return unit


def parse_run(obj: Any, path: str, index: int) -> Run | None:
    """Validates one element of "benchmarks" and returns it as a Run, or
    None for a complexity fit (BigO, RMS), which is checked and skipped."""
    where = f"benchmarks[{index}]"
    if not isinstance(obj, dict):
        raise BadInput(f"{path}: {where} is not an object")
    where = _where(index, obj)
    name = _string(obj, "name", path, where)
    run_type = _string(obj, "run_type", path, where)
    if run_type not in ("iteration", "aggregate"):
        raise BadInput(f"{path}: {where} has unknown run_type {run_type!r}; "
                       "expected 'iteration' or 'aggregate'")
    aggregate = (_string(obj, "aggregate_name", path, where)
                 if run_type == "aggregate" else "")
    error = obj.get("error_occurred", False)
    if not isinstance(error, bool):
        raise BadInput(f"{path}: {where} \"error_occurred\" is not true or false "
                       f"({_short(error)})")
    if aggregate in COMPLEXITY_AGGREGATES and not error:
        _check_complexity_fit(obj, path, where, aggregate)
        return None
    run = _run_without_metrics(obj, path, where, name, run_type, aggregate, error)
    run.raw = obj
    if run.failed:
        return run  # a failed run's numbers are zeros, not measurements
    run.metrics = _metrics(obj, path, where, aggregate)
    return run


def _run_without_metrics(obj: dict, path: str, where: str, name: str, run_type: str,
                         aggregate: str, error: bool) -> Run:
    """The Run of obj's fields other than its metrics, each checked."""
    run = Run(
        name=name,
        run_name=_string(obj, "run_name", path, where, default=name),
        run_type=run_type,
        aggregate_name=aggregate,
        repetition_index=_integer(obj.get("repetition_index", -1), path,
                                  f"{where} \"repetition_index\"", -1),
        repetitions=_integer(obj.get("repetitions", 1), path,
                             f"{where} \"repetitions\"", 1),
        threads=_integer(obj.get("threads", 1), path, f"{where} \"threads\"", 1),
        iterations=_number(obj.get("iterations", 0), path, f"{where} \"iterations\""),
        time_unit=(_time_unit(obj, path, where) if not error or "time_unit" in obj
                   else "ns"),
        label=_string(obj, "label", path, where, default=""),
        error_message=(_string(obj, "error_message", path, where, default="error")
                       if error else ""),
    )
    if run.iterations < 0:
        raise BadInput(f"{path}: {where} \"iterations\" is negative ({run.iterations:g})")
    for key, attr in (("family_index", "family_index"),
                      ("per_family_instance_index", "instance_index")):
        if key in obj:
            setattr(run, attr, _integer(obj[key], path, f"{where} \"{key}\"", 0))
    if "complexity_n" in obj:
        _number(obj["complexity_n"], path, f"{where} \"complexity_n\"")
    return run


def _metrics(obj: dict, path: str, where: str, aggregate: str) -> dict[str, float]:
    """The run's metrics: every field of obj that is neither structural nor
    a profile field, each checked (a finite number; a time not negative)."""
    metrics: dict[str, float] = {}
    for key, value in obj.items():
        if key in STRUCTURAL_FIELDS or key.startswith(PROFILE_FIELD_PREFIX):
            continue
        if key in FLAG_FIELDS:
            if not _is_flag_value(value):
                raise BadInput(f"{path}: {where} \"{key}\" is not true, false "
                               f"or a count ({_short(value)})")
            continue
        if type(value) is float and value - value == 0.0 and (
                value >= 0 or key not in TIME_METRICS):
            metrics[key] = value   # the common case: a finite float
            continue
        if (aggregate == "cv" and isinstance(value, float)
                and math.isnan(value)):
            # Google Benchmark writes the cv of a metric whose mean is 0 (a
            # counter that never fired) as NaN (stddev / mean = 0 / 0): that
            # is "no spread", not a failed measurement, so leave it out.
            continue
        number = _number(value, path, f"{where} field \"{key}\"")
        if key in TIME_METRICS and number < 0:
            raise BadInput(f"{path}: {where} \"{key}\" is negative ({number:g}); "
                           "a time is never below 0: re-run the benchmark")
        metrics[key] = number
    return metrics


def _check_context(context: Any, path: str) -> dict[str, Any]:
    """Checks the context keys the tools read: pmubench's own keys are
    strings (Google Benchmark's AddCustomContext), caches a list of objects
    with numeric sizes, load_avg a list of numbers."""
    if not isinstance(context, dict):
        raise BadInput(f"{path}: \"context\" is not an object")
    for key, value in context.items():
        if key.startswith("pmubench_") and not isinstance(value, str):
            raise BadInput(f"{path}: context \"{key}\" is not a string ({_short(value)})")
    caches = context.get("caches", [])
    if not isinstance(caches, list):
        raise BadInput(f"{path}: context \"caches\" is not a list")
    for i, cache in enumerate(caches):
        if not isinstance(cache, dict):
            raise BadInput(f"{path}: context \"caches\"[{i}] is not an object")
        for key in ("level", "size", "num_sharing"):
            if key in cache:
                _number(cache[key], path, f"context \"caches\"[{i}] \"{key}\"")
        if "type" in cache:
            _string(cache, "type", path, f"context \"caches\"[{i}]")
    load_avg = context.get("load_avg", [])
    if not isinstance(load_avg, list):
        raise BadInput(f"{path}: context \"load_avg\" is not a list")
    for i, value in enumerate(load_avg):
        _number(value, path, f"context \"load_avg\"[{i}]")
    return context


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
    context = _check_context(obj.get("context", {}), path)
    parsed = [parse_run(b, path, i) for i, b in enumerate(benchmarks)]
    runs = [r for r in parsed if r is not None]
    if not runs:
        raise BadInput(f"{path}: holds only complexity fits (BigO, RMS), no "
                       "benchmark runs to compare or plot")
    return BenchFile(path=path, context=context, runs=runs,
                     complexity_fits=len(parsed) - len(runs))


def read_json(path: str) -> Any:
    """Reads and parses one JSON file; raises BadInput naming it (and, for
    an integer too long to read, the field that holds it)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a directory, expected a JSON file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read: {e}") from None
    return parse_json_text(text, path)


def _too_deep(path: str) -> str:
    return (f"{path}: nested too deeply (arrays or objects more than "
            f"{MAX_DEPTH} levels deep); not Google Benchmark JSON")


def parse_json_text(text: str, path: str, check_depth: bool = True) -> Any:
    """read_json for text already read from path (named in messages).
    check_depth=False leaves the depth to the caller (load)."""
    # isspace(), not strip(): the same test without a copy of the text.
    if not text or text.isspace():
        raise BadInput(f"{path}: is empty; was the benchmark run interrupted?")
    too_deep = _too_deep(path)
    huge: list[_HugeInt] = []
    try:
        # Without a parse_int hook (a Python call per integer) unless an
        # integer is too long for int(): then again with it, to say where.
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            raise
        except ValueError:
            obj = json.loads(text, parse_int=lambda digits: _parse_int(digits, huge))
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not valid JSON (line {e.lineno}, column "
                       f"{e.colno}: {e.msg})") from None
    except RecursionError:  # the parser recurses once per level
        raise BadInput(too_deep) from None
    if check_depth and _depth_exceeds(obj, MAX_DEPTH):
        raise BadInput(too_deep)
    if huge:
        where = _find_huge(obj) or "a number"
        raise BadInput(
            f"{path}: {where} is an integer of {huge[0].digits} digits, more "
            f"than Python reads ({_max_digits()}); no benchmark writes that: "
            "re-run the benchmark, or fix the file")
    return obj


class _HugeInt:
    """Stands in for an integer literal longer than Python converts
    (sys.get_int_max_str_digits(), 4,300 by default): int() of it raises
    ValueError, which json.loads would let escape."""
    __slots__ = ("digits",)

    def __init__(self, digits: int):
        self.digits = digits


def _max_digits() -> int:
    import sys
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get else 4300


def _parse_int(digits: str, huge: list) -> Any:
    try:
        return int(digits)
    except ValueError:
        marker = _HugeInt(len(digits.lstrip("-")))
        huge.append(marker)
        return marker


def _find_huge(obj: Any) -> str | None:
    """Where the first _HugeInt is, as the messages name fields:
    'benchmarks[3] (BM_X) field "real_time"', 'context "caches"[0] "size"'."""
    stack: list[tuple[Any, tuple]] = [(obj, ())]
    while stack:
        node, where = stack.pop()
        if isinstance(node, _HugeInt):
            return _field_path(obj, where)
        if isinstance(node, dict):
            stack.extend((v, where + (k,)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, where + (i,)) for i, v in reversed(list(enumerate(node))))
    return None


def _field_path(obj: Any, where: tuple) -> str:
    if (len(where) >= 2 and where[0] == "benchmarks" and isinstance(obj, dict)
            and isinstance(obj.get("benchmarks"), list)):
        run = obj["benchmarks"][where[1]]
        text = _where(where[1], run) if isinstance(run, dict) else f"benchmarks[{where[1]}]"
        rest = where[2:]
        if rest:
            text += " field " + "".join(
                f"[{p}]" if isinstance(p, int) else f"\"{p}\"" for p in rest)
        return text
    parts = []
    for p in where:
        parts.append(f"[{p}]" if isinstance(p, int) else
                     (" " if parts else "") + f"\"{p}\"")
    text = "".join(parts)
    return text if not where or where[0] != "context" else "context" + text[len('"context"'):]


# Google Benchmark's JSON nests 4 levels (context.caches[i].size). Deeper
# input is refused at load, so nothing after it (comparisons, repr, dumps of
# context values) can run out of recursion.
MAX_DEPTH = 32


def _depth_exceeds(obj: Any, limit: int) -> bool:
    stack = [(obj, 1)] if isinstance(obj, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def load(path: str) -> BenchFile:
    """Reads and validates one file; raises BadInput naming it. A file
    whose runs all have the common shape is checked in one pass over them
    (_parse_common); any other goes through read_json's and parse's
    checks, which say what is wrong, in the order they always have. A
    regular file is read through a map of it (filetext), any other the
    plain way; so is a file with a carriage return that the map's text
    does not pass, so that a parse error names the line and column the
    plain read's newlines give, as always."""
    text = filetext.mapped_text(path)
    if text is not None:
        try:
            return parse_text(text, path)
        except BadInput:
            if "\r" not in text:
                raise
        del text
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return parse(read_json(path), path)     # says why
    return parse_text(text, path)


def parse_text(text: str, path: str) -> BenchFile:
    """load's checks on a file's text already read (history ingest hashes
    the same bytes): the common shape in one pass, any other through parse."""
    obj = parse_json_text(text, path, check_depth=False)
    bench = _parse_common(obj, path)
    if bench is not None:
        return bench
    if _depth_exceeds(obj, MAX_DEPTH):
        raise BadInput(_too_deep(path))
    return parse(obj, path)


def _parse_common(obj: Any, path: str) -> BenchFile | None:
    """parse(obj, path) for a file of the common shape: nested no deeper
    than MAX_DEPTH, every run valid (_common_run) and no complexity fit.
    None for any other file (nothing raised: parse says what is wrong)."""
    if type(obj) is not dict or type(obj.get("benchmarks")) is not list:
        return None
    if not obj["benchmarks"] or any(
            _depth_exceeds(v, MAX_DEPTH - 1) for k, v in obj.items() if k != "benchmarks"):
        return None
    try:
        context = _check_context(obj.get("context", {}), path)
        columns: dict[str, list[float]] = {}
        runs = _common_runs(obj["benchmarks"], path, columns)
    except BadInput:
        return None
    if runs is None or (type(runs) is list and any(run is None for run in runs)):
        return None
    return BenchFile(path=path, context=context, runs=runs,
                     shared_columns=(runs, columns) if columns else None)


def _common_runs(objs: list, path: str, columns: dict | None = None
                 ) -> list[Run | None] | None:
    """_common_run of each element of objs, in order; None when one is
    not an object. The runs of one shape (the same keys in the same
    order: a suite's runs share a few) are checked a column at a time
    (_shape_runs), in C where _common_run goes field by field: on
    180,000 runs a file that was most of the time of reading
    (scripts/dev/compare_timing.py). columns, when given, receives each
    metric's values (shared_columns) when every run has one shape."""
    if set(map(type, objs)) != {dict}:
        return None
    # One run's keys at a time against the first's (each tuple freed as
    # the next is made): no list of every run's keys unless they differ.
    shape = tuple(objs[0])
    if all(map(shape.__eq__, map(tuple, objs))):
        return _shape_runs(shape, objs, path, columns)
    keys = list(map(tuple, objs))
    shapes: dict[tuple, list[int]] = {}
    for index, shape in enumerate(keys):
        shapes.setdefault(shape, []).append(index)
    runs: list[Run | None] = [None] * len(objs)
    for shape, indexes in shapes.items():
        for index, run in zip(indexes, _shape_runs(shape, [objs[i] for i in indexes], path)):
            runs[index] = run
    return runs


# Fields the column path leaves to _common_run (rare: failed runs,
# complexity, layout flags, profiles).
_RARE_FIELDS = frozenset({"error_occurred", "complexity_n"}) | FLAG_FIELDS
# The types a structural field may have on the column path (no list or
# object: those take _common_run's depth check).
_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


def _shape_runs(shape: tuple, objs: list[dict], path: str,
                out_columns: dict | None = None) -> list[Run | None]:
    """_common_run of each of objs, whose keys are shape (in order): the
    same Runs, or None where _common_run gives None. out_columns, when
    given, receives each metric's column when every run passed the column
    checks."""
    metric_keys = [k for k in shape if k not in STRUCTURAL_FIELDS]
    rare = any(k in _RARE_FIELDS or k.startswith(PROFILE_FIELD_PREFIX) for k in shape)
    try:   # each column's types and values found once: as it is read, else on first use
        columns, sound = _value_columns(shape, objs)
        fields = None if rare else _structural_columns(columns, len(objs))
        more = None if fields is None else _more_columns(columns, len(objs))
        passed = more is not None and all(
            k in sound or _finite_floats(k, columns[k]) for k in metric_keys)
    finally:
        _TYPES.clear()
        _VALUES.clear()
    if not passed:
        return [_common_run(obj, path) for obj in objs]
    metric_columns = {k: columns[k] for k in metric_keys}
    if out_columns is None:
        return _made_runs(metric_columns, fields, more, objs)
    out_columns.update(metric_columns)
    # The Runs and their metrics dicts only when someone asks for a run:
    # a comparison of two such files reads the columns alone.
    def make(start: int, stop: int) -> list[Run]:
        if (start, stop) == (0, len(objs)):
            return _made_runs(metric_columns, fields, more, objs)
        return _made_runs({k: c[start:stop] for k, c in metric_columns.items()},
                          [c[start:stop] for c in fields], [c[start:stop] for c in more],
                          objs[start:stop])
    maker = lazyruns.RunMaker(
        make, len(objs), out_columns,
        {"run_name": fields[1], "run_type": fields[2], "time_unit": fields[8],
         "label": more[0], "family_index": more[2], "instance_index": more[3]})
    return lazyruns.LazyRuns(maker, 0, len(objs), whole=True)


# Runs a stretch in _value_columns: their values fit in a fast cache.
_STRETCH = 2048


def _value_columns(shape: tuple, objs: list[dict]) -> tuple[dict[str, list], set[str]]:
    """Each key's values over objs, whose keys are shape (in order), and
    the keys whose values _finite_floats passes, as far as the stretches
    tell (any other key may pass it too). When every run's value of each
    key has the first run's type, each column's types go to _TYPES, and
    the set of values of each column of ints, run types or units (the
    checks' sets) to _VALUES.

    The values of a stretch of runs in one flat list, then each key's a
    slice of it written into its column: in C, twice as fast as zip(*) of
    the runs' values (which makes an iterator per run), and a flat list
    of every value at once (another 24 MB on a large suite) cost more in
    page faults than the stretches' loop. The columns are lists nobody
    changes, not copied again into tuples. The types are the stretch's
    types against the first run's repeated: half the time of a set of
    types per column. The floats are summed (and a time's least found)
    and the sets of values made a stretch at a time, while the stretch's
    values are in the cache."""
    width, count = len(shape), len(objs)
    columns = [[None] * count for _ in shape]
    first = list(map(type, objs[0].values()))
    pattern: list | None = first * _STRETCH
    sound = {i: shape[i] in TIME_METRICS for i, kind in enumerate(first) if kind is float}
    values = {i: set() for i, kind in enumerate(first)
              if kind is int or (kind is str and shape[i] in ("run_type", "time_unit"))}
    for start in range(0, count, _STRETCH):
        flat = list(itertools.chain.from_iterable(
            map(dict.values, objs[start:start + _STRETCH])))
        stop = start + len(flat) // width
        if pattern is not None and list(map(type, flat)) != (
                pattern if len(flat) == len(pattern) else first * (stop - start)):
            pattern = None
        for i, column in enumerate(columns):
            part = column[start:stop] = flat[i::width]
            if pattern is not None and i in sound and not _sound_part(part, sound[i]):
                del sound[i]
            elif pattern is not None and i in values:
                values[i].update(part)
    if pattern is None:
        return dict(zip(shape, columns)), set()
    _TYPES.update((id(col), (col, {kind})) for col, kind in zip(columns, first))
    _VALUES.update((id(columns[i]), (columns[i], found)) for i, found in values.items())
    return dict(zip(shape, columns)), {shape[i] for i in sound}


def _sound_part(part: list[float], time: bool) -> bool:
    """_finite_floats of a stretch of floats: finite (a finite sum has no
    infinity or NaN in it) and, for a time, not negative."""
    return math.isfinite(sum(part)) and (not time or min(part) >= 0)


def _made_runs(metric_columns: dict[str, list], fields: list, more: list,
               objs: list[dict]) -> list[Run]:
    """The Run of each of objs, from its checked columns (_shape_runs)."""
    metrics = ([dict(zip(metric_columns, values)) for values in zip(*metric_columns.values())]
               if metric_columns else [{} for _ in objs])
    *head, iterations, units = fields
    return list(map(Run, *head, map(float, iterations), units, metrics, *more, objs))


# id of a column -> (the column, its types), while _shape_runs checks one
# shape (the column is kept, so its id stays its own): the checks ask for
# most columns' types twice.
_TYPES: dict[int, tuple[tuple, set[type]]] = {}


def _types(column: tuple) -> set[type]:
    seen = _TYPES.get(id(column))
    if seen is not None and seen[0] is column:
        return seen[1]
    types = set(map(type, column))
    _TYPES[id(column)] = (column, types)
    return types


# id of a column -> (the column, the set of its values), as _TYPES.
_VALUES: dict[int, tuple[list, set]] = {}


def _values(column: tuple) -> set:
    """set(column), found once (_VALUES) for the columns _value_columns
    reads; raises TypeError for a list or an object in it."""
    seen = _VALUES.get(id(column))
    return seen[1] if seen is not None and seen[0] is column else set(column)


def _strings_of(column: tuple, allowed) -> set | None:
    """The column's values when each is one of the strings allowed (its
    types then {str}, without a look at each value's type: only a string
    equals a string), else None."""
    try:
        values = _values(column)
    except TypeError:   # a list or an object
        return None
    if not values <= allowed:
        return None
    _TYPES[id(column)] = (column, {str})
    return values


def _int_column(column: tuple, minimum: int) -> bool:
    """_common_int of every value."""
    return _types(column) == {int} and _int_range(column, minimum, 1 << 53)


def _int_range(column: tuple, minimum: int, limit: int) -> bool:
    """minimum <= every value < limit, for a column of ints: from the set
    of its values (a suite's index, count and iterations columns hold a
    few, and a set of ints is quicker to make than min and max are to
    find over the whole column)."""
    values = _values(column)
    return min(values) >= minimum and max(values) < limit


def _finite_floats(key: str, column: tuple) -> bool:
    """True when every value is a finite float (and a time not negative):
    what _metrics keeps as it is."""
    if _types(column) != {float}:
        return False
    # A finite sum has no infinity or NaN in it (either would carry
    # through); only a sum that overflowed needs the look at each value.
    finite = math.isfinite(sum(column)) or all(map(math.isfinite, column))
    return finite and (key not in TIME_METRICS or min(column) >= 0)


def _structural_columns(columns: dict[str, tuple], count: int) -> list | None:
    """Run's fields name .. time_unit as columns, each checked as
    _common_run checks it; None when a value is not of the common shape."""
    names, run_types = columns.get("name"), columns.get("run_type")
    units = columns.get("time_unit")
    if names is None or run_types is None or units is None:
        return None
    kinds = _strings_of(run_types, {"iteration", "aggregate"})
    unit_names = _strings_of(units, TIME_UNITS_NS.keys())
    if (kinds is None or unit_names is None or _types(names) != {str}
            or any(not _types(col) <= _SCALAR_TYPES for col in columns.values())):
        return None
    run_names = columns.get("run_name", names)
    aggregates = _aggregate_column(run_types, "aggregate" in kinds,
                                   columns.get("aggregate_name"))
    iterations = columns.get("iterations", (0,) * count)
    if aggregates is None or _types(run_names) != {str} or not _iterations_column(iterations):
        return None
    ints = [columns.get(key, (default,) * count) for key, default in
            (("repetition_index", -1), ("repetitions", 1), ("threads", 1))]
    if not all(_int_column(col, minimum) for col, minimum in zip(ints, (-1, 1, 1))):
        return None
    # iterations as the file has them: _made_runs makes them floats. A
    # run type or unit column of one value is one string object throughout
    # (matching counts them: then by identity).
    return [names, run_names, _one_object(run_types, kinds), aggregates, *ints, iterations,
            _one_object(units, unit_names)]


def _one_object(column: list, values: set) -> list:
    """[value] * len(column) when values (the column's) is one value."""
    return [*values] * len(column) if len(values) == 1 else column


def _iterations_column(iterations: tuple) -> bool:
    """Every value an int or a float, 0 <= value < 1e300."""
    types = _types(iterations)
    if types == {int}:   # no NaN: the least and the largest say it
        return _int_range(iterations, 0, 1e300)
    return types <= {int, float} and all(0 <= i < 1e300 for i in iterations)


def _aggregate_column(run_types: tuple, any_aggregate: bool,
                      aggregate_names: tuple | None) -> list | None:
    """Each run's aggregate_name ("" for an iteration), or None when an
    aggregate's is missing, not a string or a complexity fit's."""
    if not any_aggregate:
        return [""] * len(run_types)
    if aggregate_names is None:
        return None
    out = [a if t == "aggregate" else "" for t, a in zip(run_types, aggregate_names)]
    if _types(out) != {str} or not set(out).isdisjoint(COMPLEXITY_AGGREGATES):
        return None
    return out


def _more_columns(columns: dict[str, tuple], count: int) -> list | None:
    """Run's fields after metrics as columns: label, error_message,
    family_index, instance_index (the indexes None where absent); None
    when one is not of the common shape."""
    labels = columns.get("label", ("",) * count)
    if _types(labels) != {str}:
        return None
    indexes = []
    for key, _ in _INDEXES:
        column = columns.get(key, (None,) * count)
        if key in columns and not _int_column(column, 0):
            return None
        indexes.append(column)
    return [labels, ("",) * count, *indexes]


_INDEXES = (("family_index", "family_index"), ("per_family_instance_index", "instance_index"))


def _common_int(value: Any, minimum: int) -> bool:
    return type(value) is int and minimum <= value < 1 << 53


def _common_run(obj: Any, path: str) -> Run | None:
    """parse_run(obj, ...) for a run of the common shape (strings, ints
    and floats of their types, no error, no complexity field, nested no
    deeper than MAX_DEPTH); None for any other run. May raise BadInput
    from the metrics' checks (_parse_common then hands the file to parse)."""
    if type(obj) is not dict:
        return None
    get = obj.get
    name, run_type, unit = get("name"), get("run_type"), get("time_unit")
    aggregate = get("aggregate_name") if run_type == "aggregate" else ""
    run_name, label = get("run_name", name), get("label", "")
    iterations = get("iterations", 0)
    if (type(name) is not str or type(unit) is not str or unit not in TIME_UNITS_NS
            or run_type not in ("iteration", "aggregate") or type(aggregate) is not str
            or aggregate in COMPLEXITY_AGGREGATES or get("error_occurred", False) is not False
            or type(run_name) is not str or type(label) is not str or "complexity_n" in obj
            or type(iterations) not in (int, float) or not 0 <= iterations < 1e300):
        return None
    index, repetitions, threads = (get("repetition_index", -1), get("repetitions", 1),
                                   get("threads", 1))
    if not (_common_int(index, -1) and _common_int(repetitions, 1)
            and _common_int(threads, 1)):
        return None
    run = Run(name, run_name, run_type, aggregate, index, repetitions, threads,
              float(iterations), unit, label=label, raw=obj)
    for key, attr in _INDEXES:
        if key in obj:
            if not _common_int(obj[key], 0):
                return None
            setattr(run, attr, obj[key])
    for key, value in obj.items():
        if type(value) in (dict, list) and _depth_exceeds(value, MAX_DEPTH - 3):
            return None
    run.metrics = _metrics(obj, path, "", aggregate)
    return run


def to_ns(value: float, unit: str) -> float:
    return value * TIME_UNITS_NS[unit]
