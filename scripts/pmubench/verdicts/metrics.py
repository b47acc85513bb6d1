"""The one metric model: what every metric field of a run is, how it is
judged and what is said about it. compare (thresholds, gates), ci_compare.sh
and the history (detect, judge, report) take every such fact from here;
tests/python/test_metric_model.py holds that no other module names a metric
class or a default threshold.

For a metric field (its name as the JSON spells it, with the context of its
run) `describe()` gives:

- its class (CLASSES: the first class with a pattern matching the bare name,
  benchjson.base_name), with the default threshold in percent and the
  absolute floor per iteration below which no change counts;
- its kind, what decides how it is judged:
    exact           a count the code alone sets: instructions, branches,
                    page faults, L1 loads and stores, allocations, and every
                    count a simulator wrote ("callgrind/.../"); one value
                    per build, so one run a side judges it;
    noisy           a count the machine moves (cycles, cache misses), and an
                    exact count of a run marked layout sensitive
                    (pmubench_layout_sensitive: true; the count moves with
                    where the linker put the code, so it is judged as
                    noise is);
    time            real_time, cpu_time, task-clock, rates: noisy, judged by
                    a test over repetitions or a history;
    simulator time  a time of a run the callgrind backend measured: the
                    simulator's, never judged (shown apart);
    derived         IPC and *-ratio;
    info            describes the machine (context switches, migrations):
                    shown, never judged unless given a threshold;
- its direction (higher_is_better: rates and IPC);
- the words said about it (Metric.words).

Allocation counts (allocs_per_iter, alloc_bytes_per_iter, frees_per_iter,
max_bytes_used) are exact at 0%: one more per iteration (or one byte more
at the peak) is a regression; a change under ALLOC_FLOOR is averaging over
a batch whose allocations are amortized, not a change.
"""

from __future__ import annotations

import fnmatch
import math
import textwrap
from dataclasses import dataclass

from pmubench.runs import benchjson

EXACT = "exact"
NOISY = "noisy"
TIME = "time"
SIMULATOR_TIME = "simulator time"
DERIVED = "derived"
INFO = "info"

# The run field that marks a case whose counts move with code layout.
LAYOUT_FLAG = benchjson.LAYOUT_SENSITIVE_FIELD
# The backend whose times are the simulator's (pmubench_backend context key).
SIMULATOR_BACKEND = "callgrind"
# The default for a simulated count of the deterministic class: one
# instruction more per iteration fails a case of up to 199 instructions.
SIMULATED_EXACT_PCT = 0.5
ALLOC_FLOOR = 0.5
# The allocation counts whose call sites compare names (alloc_sites.py).
ALLOC_COUNT = "allocs_per_iter"
ALLOC_BYTES = "alloc_bytes_per_iter"
# The class whose simulated counts are gated at SIMULATED_EXACT_PCT.
INSTRUCTION_CLASS = "deterministic"
# Values a benchmark declares rather than counts (benches/accuracy.cc's
# expected_instructions): exact, but they catch no slowdown.
DECLARED_PATTERNS = ("expected_*",)


@dataclass(frozen=True)
class MetricClass:
    name: str
    kind: str
    threshold_pct: float | None   # None: shown, never gated
    floor: float                  # absolute change below which nothing counts
    patterns: tuple[str, ...]     # fnmatch patterns over the bare event name
    words: str                    # what is said about the class


# Order matters: the first class with a matching pattern wins.
CLASSES = (
    MetricClass("info", INFO, None, 0.0, (
        "context-switches", "cs", "cpu-migrations", "migrations",
        "major-faults", "alignment-faults", "emulation-faults",
        "pmu_running_fraction"),
        "describes the machine, not the code: shown, never gated"),
    MetricClass("time", TIME, 10.0, 0.0, (
        "real_time", "cpu_time", "task-clock", "cpu-clock", "tsc",
        "ref-cycles", "duration_time", "items_per_second",
        "bytes_per_second", "*tsc*", "*ticks*", "*_ns"),
        "a time: a shared machine moves it by several percent between runs"),
    MetricClass("derived", DERIVED, 5.0, 0.001, ("IPC", "*-ratio"),
                "a ratio of two counts"),
    MetricClass("allocation", EXACT, 0.0, ALLOC_FLOOR, (
        ALLOC_COUNT, ALLOC_BYTES, "frees_per_iter",
        "max_bytes_used"),
        "an exact allocation count: one more per iteration is a regression"),
    MetricClass("deterministic", EXACT, 1.0, 0.01, (
        "instructions", "branches", "branch-instructions", "page-faults",
        "minor-faults", "faults", "L1-dcache-loads", "L1-dcache-stores",
        "INST_RETIRED*", "BR_INST_RETIRED*", "MEM_INST_RETIRED*",
        "expected_*"),
        "an exact count: set by the code, it barely moves run to run"),
    MetricClass("cycles", NOISY, 5.0, 0.01, (
        "cycles", "cpu-cycles", "bus-cycles", "stalled-cycles-*", "aperf",
        "mperf", "*CYCLES*"),
        "a noisy count: cycles follow what else the machine is doing"),
    MetricClass("cache", NOISY, 5.0, 0.01, ("*",),
                "a noisy count: misses follow what else the machine is doing"),
)
CLASS_BY_NAME = {c.name: c for c in CLASSES}
# The classes whose counts are exact where a PMU counts them.
EXACT_CLASSES = frozenset(c.name for c in CLASSES if c.kind == EXACT)


def classify(metric: str) -> MetricClass:
    """The class of a metric field, by its bare name."""
    bare = benchjson.base_name(metric)
    if bare == LAYOUT_FLAG:   # kept by the history as a series of 1s
        return CLASS_BY_NAME["info"]
    for cls in CLASSES:
        for pattern in cls.patterns:
            # Upper-case patterns are vendor event names, which perf
            # accepts in either case; the generic names are lower-case.
            subject = bare.upper() if pattern.isupper() else bare
            if fnmatch.fnmatchcase(subject, pattern):
                return cls
    return CLASS_BY_NAME["cache"]


@dataclass(frozen=True)
class Metric:
    """Everything said about one metric field of one run."""
    name: str
    metric_class: MetricClass
    kind: str
    higher_is_better: bool
    simulated: bool               # a count a simulator wrote

    @property
    def exact(self) -> bool:
        return self.kind == EXACT

    @property
    def judged(self) -> bool:
        """False for what no verdict ever judges by default."""
        return self.kind not in (SIMULATOR_TIME, INFO)

    @property
    def default_pct(self) -> float | None:
        if self.kind == SIMULATOR_TIME:
            return None
        if self.simulated and self.metric_class.name == INSTRUCTION_CLASS:
            return SIMULATED_EXACT_PCT
        return self.metric_class.threshold_pct

    @property
    def words(self) -> str:
        if self.kind == SIMULATOR_TIME:
            return "valgrind's time, not the code's: never judged"
        if self.kind == NOISY and (self.simulated or self.metric_class.kind == EXACT):
            return "a count of a layout-sensitive case: judged as noisy"
        if self.simulated:
            return "a simulated count: bit-identical run to run"
        return self.metric_class.words


def _kind(cls: MetricClass, simulated: bool, backend: str, layout_sensitive: bool) -> str:
    if cls.kind == TIME and backend == SIMULATOR_BACKEND:
        return SIMULATOR_TIME
    exact = cls.kind == EXACT or (simulated and cls.kind in (NOISY, DERIVED))
    if exact and layout_sensitive:
        return NOISY
    return EXACT if exact else cls.kind


def describe(metric: str, backend: str = "native",
             layout_sensitive: bool = False) -> Metric:
    """The model of one metric field of a run measured by backend (the
    context's pmubench_backend; "native" when absent), layout_sensitive
    when its run carries pmubench_layout_sensitive: true."""
    cls = classify(metric)
    simulated = benchjson.is_simulated(metric)
    return Metric(metric, cls, _kind(cls, simulated, backend, layout_sensitive),
                  benchjson.is_higher_better(metric), simulated)


def is_time(metric: str) -> bool:
    """True for the metrics of the time class (what "time" selects)."""
    return classify(metric).kind == TIME


def is_layout_sensitive(raw: dict | None) -> bool:
    """True when a run's JSON object says its counts move with layout."""
    return benchjson.is_layout_sensitive(raw)


def catches_one_in(pct: float) -> int:
    """The largest count per iteration in which one more (or one fewer)
    is a change beyond pct: 199 for 0.5% (1/199 = 0.503%; 1/200 is not
    more than 0.5%). 0 for a pct of 100 or more."""
    if pct <= 0:
        raise ValueError("a gate of 0% catches any change above the floor")
    return max(0, math.ceil(100.0 / pct) - 1)


# How --help spells the msr PMU's events, which classify() sees bare.
_SHOWN_AS = {"tsc": "msr/tsc/", "aperf": "msr/aperf/", "mperf": "msr/mperf/"}


def defaults_table(width: int = 78) -> str:
    """The default thresholds as wrapped lines for --help."""
    lines = []
    for cls in CLASSES:
        pct = "not gated" if cls.threshold_pct is None else f"{cls.threshold_pct:g}%"
        names = ", ".join(_SHOWN_AS.get(p, p) for p in cls.patterns)
        if cls.name == "cache":
            names = "*-misses, cache-references, LLC-*, and every other counter"
        lead = f"  {cls.name:<13} {pct:<10} "
        lines += textwrap.wrap(names, width, initial_indent=lead,
                               subsequent_indent=" " * len(lead),
                               break_on_hyphens=False)
    lead = f"  {'simulated':<13} {SIMULATED_EXACT_PCT:g}%{'':<7} "
    lines += textwrap.wrap(
        "callgrind/instructions/ and the other simulated counts of the "
        "deterministic class (branches, loads, stores): one instruction "
        "more per iteration fails a case of up to "
        f"{catches_one_in(SIMULATED_EXACT_PCT)} instructions per iteration; "
        "simulated misses keep their class's",
        width, initial_indent=lead, subsequent_indent=" " * len(lead),
        break_on_hyphens=False)
    return "\n".join(lines)
