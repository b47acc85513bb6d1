"""Pure functions that turn loaded benchmark runs into what a report plots.

No matplotlib here (draw.py draws; plan.py decides what to draw):
per-benchmark statistics over repetitions, grouping into families and
the families into sections (one per source file, from the
pmubench_case_files context key), the choice of x axis for sweep figures,
units and cache-size markers. The change between files reuses
scripts/compare.py's statistics (pmubench.compare) so the plot and the CI
verdict agree.

    bench = benchjson.load("run.json")
    for section in group_sections(instances_of(bench), bench.context):
        for family, members in section.families.items():
            axis = choose_x_axis(members)  # a sweep figure, or None
        ...
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Optional

from pmubench.runs import benchjson
from pmubench.runs.case_files import case_files
from pmubench.runs import matching
from pmubench.verdicts import comparison as pm_comparison


@dataclass(frozen=True)
class Stat:
    """One metric of one benchmark over its repetitions."""
    mean: float
    stddev: float          # sample standard deviation; 0.0 when n < 2
    n: int                 # repetitions behind mean/stddev
    values: tuple[float, ...] = ()  # the repetitions; empty if only aggregates
    median_aggregate: Optional[float] = None  # the "median" run, aggregates only

    @property
    def median(self) -> float:
        if self.values:
            return statistics.median(self.values)
        return self.mean if self.median_aggregate is None else self.median_aggregate


@dataclass
class Instance:
    """One benchmark (a run name) of a file, its repetitions summarised.

    Times are in nanoseconds whatever the file's time_unit was.
    """
    run_name: str
    family: str
    args: list[tuple[str, str]]
    threads: int
    label: str = ""
    error: str = ""        # non-empty: every repetition failed
    stats: dict[str, Stat] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The name scripts/compare.py matches files by ('repeats:N' dropped)."""
        return matching.match_key(self.run_name)

    @property
    def short_name(self) -> str:
        """The name without the family: 'bytes:4096', or the family itself."""
        rest = self.key.split("/", 1)
        return rest[1] if len(rest) > 1 else rest[0]


def metric_kind(metric: str) -> str:
    """'time', 'rate', 'derived' or 'counter' (an event or user counter)."""
    if metric in benchjson.TIME_METRICS:
        return "time"
    if metric in benchjson.RATE_METRICS:
        return "rate"
    if benchjson.is_derived(metric):
        return "derived"
    return "counter"


_KIND_ORDER = {"time": 0, "rate": 1, "counter": 2, "derived": 3}


def ordered_metrics(instances: list[Instance]) -> list[str]:
    """Metrics of any instance: time, rates, counters, derived; else first seen."""
    seen: dict[str, None] = {}
    for inst in instances:
        for name in inst.stats:
            seen.setdefault(name, None)
    # pmu_running_fraction is bookkeeping: after the metrics it qualifies.
    return sorted(seen, key=lambda m: (_KIND_ORDER[metric_kind(m)],
                                       m == "pmu_running_fraction"))


# The heap-allocation fields (docs/allocations.md): counts per iteration,
# and a peak that is not per iteration.
_ALLOCATION_UNITS = {
    "allocs_per_iter": "allocations per iteration",
    "alloc_bytes_per_iter": "bytes allocated per iteration",
    "frees_per_iter": "frees per iteration",
    "max_bytes_used": "peak live heap bytes",
}


def metric_unit(metric: str) -> str:
    """Unit of a metric as pmubench writes it (counters are per iteration)."""
    kind = metric_kind(metric)
    if kind == "time":
        return "ns per iteration"
    if metric == "items_per_second":
        return "items/s"
    if metric == "bytes_per_second":
        return "bytes/s"
    base = benchjson.base_name(metric)
    if base == "IPC":
        return "instructions per cycle"
    if kind == "derived":
        return "fraction"
    if metric in _ALLOCATION_UNITS:
        return _ALLOCATION_UNITS[metric]
    unit = counter_unit(metric)
    per_iteration = f"{unit or 'events'} per iteration"
    return f"simulated {per_iteration}" if is_simulated(metric) else per_iteration


def is_simulated(metric: str) -> bool:
    """A count of the callgrind backend (`callgrind/instructions/`), not of
    the hardware."""
    return metric.startswith("callgrind/")


def backend_note(context: dict) -> str | None:
    """What a file of the callgrind backend must say above its figures: its
    counts are simulated, by which valgrind and cache geometry, and its
    times are those of a run under valgrind. None for hardware counts."""
    if context.get("pmubench_backend") != "callgrind":
        return None
    parts = [f"valgrind {context.get('pmubench_valgrind', '(version not recorded)')}"]
    if context.get("pmubench_cache_geometry"):
        parts.append(f"cache geometry {context['pmubench_cache_geometry']}")
    return ("Simulated counts: every callgrind/ metric of this run was counted "
            f"by callgrind ({', '.join(parts)}), not by the hardware; its "
            "times are those of a run under valgrind, many times slower than "
            "a native one, and not comparable with them.")


def counter_unit(event: str) -> str:
    """The unit an event counts in, as the console shows it: 'ns' for
    perf's clock events (task-clock, cpu-clock: nanoseconds), 'TSC cycles'
    for msr/tsc (the time-stamp counter's cycles), 'cycles' for the cycle
    events; '' for a count of events."""
    base = benchjson.base_name(event)
    if base in ("task-clock", "cpu-clock"):
        return "ns"
    if base == "tsc":
        return "TSC cycles"
    if base in ("cycles", "ref-cycles", "cpu-cycles"):
        return "cycles"
    return ""


def with_units(pairs: str) -> str:
    """The context's 'event=value ...' lists (pmubench_read_overhead) with
    each value's unit: 'task-clock=861 page-faults=0; msr/tsc/=40' ->
    'task-clock=861 ns page-faults=0; msr/tsc/=40 TSC cycles'. Anything
    that is not event=number is left as written."""
    def one(item: str) -> str:
        event, sep, value = item.rpartition("=")
        unit = counter_unit(event) if sep else ""
        try:
            float(value)
        except ValueError:
            return item
        return f"{item} {unit}" if unit else item
    return "; ".join(" ".join(one(item) for item in group.split(" "))
                     for group in pairs.split("; "))


_TIME_SCALES = (("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0))


def time_scale(values_ns: list[float]) -> tuple[str, float]:
    """('us', 1e3) etc.: the unit in which the median of values reads >= 1."""
    positive = [abs(v) for v in values_ns if v]
    if not positive:
        return "ns", 1.0
    typical = statistics.median(positive)
    for unit, scale in _TIME_SCALES:
        if typical >= scale:
            return unit, scale
    return "ns", 1.0


_SI_PREFIXES = (("G", 1e9), ("M", 1e6), ("k", 1e3))


def si_scale(values: list[float]) -> tuple[str, float]:
    """('M', 1e6) etc.: the SI prefix in which the median of values reads >= 1."""
    positive = [abs(v) for v in values if v]
    if positive:
        typical = statistics.median(positive)
        for prefix, scale in _SI_PREFIXES:
            if typical >= scale:
                return prefix, scale
    return "", 1.0


def fully_counted(members: list[Instance]) -> bool:
    """True when every benchmark's pmu_running_fraction is 1 (or absent)."""
    return all(abs(m.stats["pmu_running_fraction"].mean - 1.0) < 1e-9
               for m in members if "pmu_running_fraction" in m.stats)


def _summarise(samples: list[float]) -> Stat:
    mean = statistics.fmean(samples)
    sd = statistics.stdev(samples) if len(samples) > 1 else 0.0
    return Stat(mean=mean, stddev=sd, n=len(samples), values=tuple(samples))


def _in_ns(run: benchjson.Run, metric: str, value: float) -> float:
    return benchjson.to_ns(value, run.time_unit) if metric_kind(metric) == "time" else value


def instances_of(bench: benchjson.BenchFile) -> list[Instance]:
    """Every benchmark of a file in file order, statistics over repetitions.

    Iteration runs are summarised directly. A benchmark written with
    --benchmark_report_aggregates_only has no iteration runs: its "mean" and
    "stddev" aggregates are used instead (values stay empty).
    """
    order: dict[str, Instance] = {}
    samples: dict[str, dict[str, list[float]]] = {}
    aggregates: dict[str, dict[str, dict[str, float]]] = {}
    repetitions: dict[str, int] = {}
    for run in bench.runs:
        repetitions[run.run_name] = max(repetitions.get(run.run_name, 1), run.repetitions)
        inst = order.get(run.run_name)
        if inst is None:
            inst = Instance(run_name=run.run_name, family=run.family,
                            args=run.args, threads=run.threads)
            order[run.run_name] = inst
        if run.label:
            inst.label = run.label
        if run.failed:
            inst.error = run.error_message
            continue
        if run.run_type == "aggregate":
            aggregates.setdefault(run.run_name, {})[run.aggregate_name] = {
                m: _in_ns(run, m, v) for m, v in run.metrics.items()}
            continue
        per_metric = samples.setdefault(run.run_name, {})
        for metric, value in run.metrics.items():
            per_metric.setdefault(metric, []).append(_in_ns(run, metric, value))
    for name, inst in order.items():
        if name in samples:
            inst.stats = {m: _summarise(v) for m, v in samples[name].items()}
            inst.error = ""  # some repetitions worked
        elif "mean" in aggregates.get(name, {}):
            aggs = aggregates[name]
            reps = repetitions[name]
            inst.stats = {
                m: Stat(mean=v, stddev=aggs.get("stddev", {}).get(m, 0.0), n=reps,
                        median_aggregate=aggs.get("median", {}).get(m))
                for m, v in aggs["mean"].items()}
            inst.error = ""
    return list(order.values())


def require_measurements(bench: benchjson.BenchFile, instances: list[Instance]) -> None:
    """Raises BadInput when a file has nothing to plot (every run failed)."""
    if not any(inst.stats for inst in instances):
        errors = sorted({inst.error for inst in instances if inst.error})
        raise benchjson.BadInput(
            f"{bench.path}: no benchmark produced a measurement (every run "
            f"failed: {'; '.join(errors) or 'no iteration or mean runs'}); "
            "fix the failing benchmarks and re-run")


def group_families(instances: list[Instance]) -> dict[str, list[Instance]]:
    families: dict[str, list[Instance]] = {}
    for inst in instances:
        families.setdefault(inst.family, []).append(inst)
    return families


NO_SOURCE = "no source file"


@dataclass
class Section:
    """The benchmarks a report draws together: every family one source file
    registered (pmubench_case_files), or, in one section named NO_SOURCE,
    every family the context names no file for (plain BENCHMARK cases, or a
    file written without the key). A family that sweeps an argument gets
    its own scaling figures; the section's other families share one bar
    chart, a panel per metric, so two families only ever share an axis of
    one metric and unit."""
    source: str                            # the source file stem, or ""
    families: dict[str, list[Instance]]    # family -> its benchmarks, file order

    @property
    def name(self) -> str:
        return self.source or NO_SOURCE

    @property
    def members(self) -> list[Instance]:
        return [inst for group in self.families.values() for inst in group]

    @property
    def title(self) -> str:
        """'branch_prediction (4 families)', 'no source file (1 family)'."""
        n = len(self.families)
        return f"{self.name} ({n} {'family' if n == 1 else 'families'})"


def group_sections(instances: list[Instance],
                   context: dict[str, Any]) -> list[Section]:
    """One section per source file (the context's pmubench_case_files),
    plus one for the families it names no file for, in the order their
    first family appears in the file; families in file order inside."""
    sources = case_files(context)
    sections: dict[str, Section] = {}
    for family, members in group_families(instances).items():
        source = sources.get(family, "")
        section = sections.get(source)
        if section is None:
            section = sections[source] = Section(source, {})
        section.families[family] = members
    return list(sections.values())


@dataclass(frozen=True)
class XAxis:
    """What a scaling plot puts on x: an argument (by position) or threads."""
    position: int          # index into Instance.args; -1 for threads
    name: str              # axis label: the ArgName, 'argument 1', 'threads'
    is_bytes: bool         # a size in bytes: cache markers, KiB/MiB ticks

    def value(self, inst: Instance) -> Optional[float]:
        if self.position < 0:
            return float(inst.threads)
        if self.position >= len(inst.args):
            return None
        return _as_number(inst.args[self.position][1])

    def line_key(self, inst: Instance) -> str:
        """The benchmark a point belongs to: every other argument, threads."""
        parts = [f"{k}:{v}" if k else v
                 for i, (k, v) in enumerate(inst.args) if i != self.position]
        if self.position >= 0 and inst.threads > 1:
            parts.append(f"threads:{inst.threads}")
        return "/".join(parts) or inst.family


def line_groups(members: list[Instance], axis: XAxis) -> dict[str, list[Instance]]:
    """Measured benchmarks split into the lines of a scaling plot.

    A line's name is its other arguments; a label shared by the whole
    line (and not by every line) is appended: 'sorted:1 [sorted]'.
    """
    lines: dict[str, list[Instance]] = {}
    for inst in members:
        if inst.stats and axis.value(inst) is not None:
            lines.setdefault(axis.line_key(inst), []).append(inst)
    labels = {key: {i.label for i in group} for key, group in lines.items()}
    distinct = {next(iter(v)) for v in labels.values() if len(v) == 1}
    if len(lines) > 1 and len(distinct) > 1 and all(len(v) == 1 for v in labels.values()):
        return {f"{key} [{next(iter(labels[key]))}]" if next(iter(labels[key])) else key: group
                for key, group in lines.items()}
    return lines


def _as_number(text: str) -> Optional[float]:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def is_bytes_argument(arg_name: str) -> bool:
    """An argument is a size in bytes when its ArgName says so.

    Google Benchmark's JSON keeps no unit, so the rule is the name the case
    gives it with ->ArgName(...): one containing "bytes" ("bytes",
    "working_set_bytes"). Unnamed arguments are plain numbers.
    """
    return "bytes" in arg_name.lower()


def choose_x_axis(members: list[Instance]) -> Optional[XAxis]:
    """The numeric argument (or threads) with the most distinct values.

    None when no candidate takes two or more values: nothing scales.
    """
    measured = [m for m in members if m.stats]
    candidates: list[XAxis] = []
    positions = max((len(m.args) for m in measured), default=0)
    for pos in range(positions):
        names = {m.args[pos][0] for m in measured if pos < len(m.args)}
        name = names.pop() if len(names) == 1 else ""
        candidates.append(XAxis(pos, name or f"argument {pos + 1}",
                                is_bytes_argument(name)))
    candidates.append(XAxis(-1, "threads", False))
    best, best_count = None, 1
    for axis in candidates:
        values = [axis.value(m) for m in measured]
        if any(v is None for v in values):
            continue
        count = len(set(values))
        if count > best_count:
            best, best_count = axis, count
    return best


def spans_decades(values: list[float], ratio: float = 100.0) -> bool:
    """True when positive values span at least `ratio` (log scale reads better)."""
    if not values or min(values) <= 0:
        return False
    return max(values) / min(values) >= ratio


def format_bytes(n: float) -> str:
    """4096 -> '4 KiB', 3145728 -> '3 MiB', 100 -> '100 B'."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{n:.0f} B"


def cache_markers(context: dict[str, Any]) -> list[tuple[float, str]]:
    """(size in bytes, 'L1d 48 KiB') for each data or unified cache."""
    markers = []
    for cache in context.get("caches", []) or []:
        if not isinstance(cache, dict) or cache.get("type") == "Instruction":
            continue
        size, level = cache.get("size"), cache.get("level")
        if not isinstance(size, (int, float)) or size <= 0:
            continue
        suffix = "d" if cache.get("type") == "Data" else ""
        markers.append((float(size), f"L{level}{suffix} {format_bytes(size)}"))
    return sorted(markers)


@dataclass(frozen=True)
class Change:
    """Contender vs baseline for one benchmark and metric, in percent, with
    scripts/compare.py's own verdict (pmubench.verdicts.comparison)."""
    key: str
    percent: float
    low: Optional[float]   # None without 2+ repetitions on both sides
    high: Optional[float]
    level: Optional[float] = None  # the interval's actual confidence level
    verdict: str = ""              # comparison.REGRESSION, IMPROVEMENT, ...


def changes(comparison: pm_comparison.Comparison, metric: str) -> list[Change]:
    """The rows of one metric of a compare.py comparison as plot points, in
    the baseline's order; rows whose change is infinite (a zero baseline)
    are left out."""
    result = []
    for row in comparison.rows:
        if row.metric != metric or not math.isfinite(row.change):
            continue
        iv = row.interval
        result.append(Change(row.benchmark, row.change * 100.0,
                             None if iv is None else iv.low * 100.0,
                             None if iv is None else iv.high * 100.0,
                             None if iv is None else iv.level, row.verdict))
    return result


def format_value(value: float) -> str:
    """Four significant digits, no exponent for everyday magnitudes."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e7:
        return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return f"{value:.3e}"
