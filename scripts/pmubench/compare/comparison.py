"""Compares two pmubench/Google Benchmark files metric by metric.

One row per (metric, benchmark) that both files measured. Each row has the
center of each side (the median of the repetitions, else the median or mean
aggregate, else the single value), the relative change of the centers, and a
verdict reached in one of three modes:

- "u-test": both sides have repetitions and enough of them for the exact
  Mann-Whitney test to reach p < alpha (4 vs 4 or more at alpha 0.05; see
  stats.min_two_sided_p). Regression (or improvement) when the change is
  beyond the metric's threshold in the worse (better) direction AND
  p < alpha. A confidence interval for the change comes with it.
- "few reps": both sides have repetitions but too few for p < alpha to be
  possible (2 vs 2, 3 vs 3, 2 vs 5 ...). The test cannot confirm anything,
  so the verdict asks for the strongest evidence such a sample has: the
  change beyond the threshold AND every contender repetition beyond every
  baseline repetition in that direction (complete separation; with 3 vs 3
  that is the exact test's smallest p, 0.1). The interval is the widest,
  [min, max] of the pairwise changes, at the level it reaches (90% there).
- "threshold only": a side without repetitions (one run, or an
  aggregates-only file): the change of the centers against the threshold,
  nothing more.

Only deterministic metrics (instructions, branches, page faults: the
"deterministic" class of thresholds.py) are gated in the last two modes.
Times, cycles and cache misses are "not gated" there: on a loaded machine
they move by more than their threshold between two runs of the same binary,
and with 3 vs 3 complete separation happens by chance in 1 pair of samples
in 10, so over a suite of a hundred rows an unchanged binary "regressed"
dozens of times (an A/A run of the suite: README, "Comparing two runs").

In every mode a change smaller than the metric's floor (an absolute amount
per iteration, thresholds.py) is no change. Metrics without a threshold
("info" class: context switches, migrations, running fraction) get the
verdict "not gated". Direction: times and event counts are worse higher;
IPC, items_per_second and bytes_per_second are worse lower
(benchjson.is_higher_better).

A geomean row per metric gives the geometric mean of contender/baseline
over the benchmarks where both centers are positive; it summarizes and has
no verdict of its own.
"""

from __future__ import annotations

import fnmatch
import math
import statistics
from dataclasses import dataclass, field

from pmubench import benchjson
from pmubench.compare import matching, stats, thresholds

REGRESSION = "regression"
IMPROVEMENT = "improvement"
NO_CHANGE = "no significant change"
NOT_GATED = "not gated"

U_TEST = "u-test"
# Metric classes (thresholds.CLASSES) whose value is set by the code, not the
# machine: the only ones a sample too small for the test may gate.
DETERMINISTIC_CLASSES = ("deterministic",)
FEW_REPS = "few reps"
THRESHOLD_ONLY = "threshold only"

# Context keys whose difference between the two files is worth a note
# (not mhz_per_cpu: Google Benchmark reads the current clock, which moves).
_CONTEXT_KEYS = (
    "host_name", "num_cpus", "library_build_type",
    "pmubench_version", "pmubench_pmus", "pmubench_events",
    "pmubench_pinned", "pmubench_exclude_kernel", "pmubench_notice")


@dataclass
class Side:
    center: float
    n: int
    source: str             # matching.REPETITIONS, ... SINGLE_RUN
    values: list[float]


@dataclass
class Row:
    benchmark: str
    metric: str
    unit: str               # time unit for times, "" otherwise
    baseline: Side
    contender: Side
    change: float           # relative, e.g. 0.05 for +5%; may be +-inf
    p_value: float | None
    interval: stats.Interval | None
    mode: str
    threshold: thresholds.Threshold
    higher_is_better: bool
    verdict: str


@dataclass
class Geomean:
    metric: str
    change: float           # geomean ratio - 1; nan when no positive pair
    benchmarks: int


@dataclass
class Comparison:
    baseline_path: str
    contender_path: str
    alpha: float
    rows: list[Row]
    geomeans: list[Geomean]
    metrics: list[str]                   # in display order
    pairing: matching.Pairing
    notes: list[str] = field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.rows if r.verdict == verdict)

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == REGRESSION]


def selected(metric: str, patterns: list[str] | None) -> bool:
    """True when metric or its base name ('instructions' for
    'instructions:u') matches one of the --metrics patterns ("time" is every
    metric of the time class); every metric when there are none."""
    if not patterns:
        return True
    base = benchjson.base_name(metric)
    return any((p == "time" and thresholds.is_time(metric))
               or fnmatch.fnmatchcase(metric, p) or fnmatch.fnmatchcase(base, p)
               for p in patterns)


def _side(sample: matching.Sample) -> Side:
    return Side(stats.median(sample.values), len(sample.values),
                sample.source, list(sample.values))


@dataclass(frozen=True)
class Judgement:
    verdict: str
    mode: str
    change: float
    p_value: float | None
    interval: stats.Interval | None


def judge(baseline: Side, contender: Side, threshold: thresholds.Threshold,
          higher_is_better: bool, alpha: float) -> Judgement:
    """The verdict for one metric of one benchmark (see the module comment
    for the rules)."""
    change = stats.relative_change(baseline.center, contender.center)
    p = interval = None
    if (baseline.source == contender.source == matching.REPETITIONS):
        p = stats.mann_whitney_p(baseline.values, contender.values)
        interval = stats.ratio_interval(baseline.values, contender.values, alpha)
        if stats.min_two_sided_p(baseline.n, contender.n) < alpha:
            mode = U_TEST
            evidence = p < alpha
        else:
            mode = FEW_REPS
            evidence = stats.completely_separated(
                baseline.values, contender.values,
                worse_is_higher=contender.center > baseline.center)
    else:
        mode = THRESHOLD_ONLY
        evidence = True
    if threshold.pct is None or (mode != U_TEST and
                                 threshold.metric_class not in DETERMINISTIC_CLASSES):
        verdict = NOT_GATED
    elif (abs(change) * 100.0 > threshold.pct and evidence and
          abs(contender.center - baseline.center) >= threshold.floor):
        worse = (change < 0) if higher_is_better else (change > 0)
        verdict = REGRESSION if worse else IMPROVEMENT
    else:
        verdict = NO_CHANGE
    return Judgement(verdict, mode, change, p, interval)


def _noise_notes(rows: list[Row], metrics: list[str]) -> list[str]:
    """Notes for metrics whose baseline spread is larger than the threshold:
    their verdicts rest on the test and need more repetitions to fire."""
    notes = []
    for metric in metrics:
        cvs = []
        threshold = None
        for r in rows:
            if r.metric != metric or r.baseline.source != matching.REPETITIONS:
                continue
            threshold = r.threshold.pct
            mean = statistics.fmean(r.baseline.values)
            if mean > 0:
                cvs.append(statistics.stdev(r.baseline.values) / mean * 100.0)
        if threshold is None or not cvs:
            continue
        typical = statistics.median(cvs)
        if typical > threshold:
            notes.append(
                f"{metric}: the baseline's repetitions spread by {typical:.1f}% "
                f"(median cv), more than its {threshold:g}% threshold: a "
                "change of that size may be noise; the test guards against "
                "it, and more repetitions or a quieter machine sharpen it")
    return notes


def _context_notes(base: dict, cont: dict) -> list[str]:
    notes = []
    for key in _CONTEXT_KEYS:
        b, c = base.get(key), cont.get(key)
        if b != c:
            notes.append(f"context differs: {key} is {b!r} in the baseline "
                         f"and {c!r} in the contender")
    return notes


def compare(baseline: benchjson.BenchFile, contender: benchjson.BenchFile,
            overrides: list[thresholds.Override] | None = None,
            alpha: float = 0.05, metric_patterns: list[str] | None = None
            ) -> Comparison:
    """Compares two loaded files. Raises benchjson.BadInput (see
    matching.pair) when they cannot be compared."""
    overrides = overrides or []
    pairing = matching.pair(baseline, contender)
    order: dict[str, None] = {}
    for name in baseline.metric_names() + contender.metric_names():
        if selected(name, metric_patterns):
            order.setdefault(name, None)
    metrics = list(order)
    rows: list[Row] = []
    for metric in metrics:
        threshold = thresholds.resolve(metric, overrides)
        higher = benchjson.is_higher_better(metric)
        for b_runs, c_runs in pairing.common:
            b_sample, c_sample = b_runs.sample(metric), c_runs.sample(metric)
            if b_sample is None or c_sample is None:
                continue
            b, c = _side(b_sample), _side(c_sample)
            j = judge(b, c, threshold, higher, alpha)
            unit = b_runs.time_unit if metric in benchjson.TIME_METRICS else ""
            rows.append(Row(b_runs.name, metric, unit, b, c, j.change, j.p_value,
                            j.interval, j.mode, threshold, higher, j.verdict))
    metrics = [m for m in metrics if any(r.metric == m for r in rows)]
    geomeans = []
    for metric in metrics:
        ratio, count = stats.geomean_ratio(
            [(r.baseline.center, r.contender.center) for r in rows if r.metric == metric])
        geomeans.append(Geomean(metric, ratio - 1.0 if count else math.nan, count))
    notes = _context_notes(baseline.context, contender.context)
    for bench in (baseline, contender):
        if bench.complexity_fits:
            notes.append(f"{bench.path}: {bench.complexity_fits} complexity "
                         "fit(s) (->Complexity()'s BigO and RMS aggregates) "
                         "left out: they fit a curve over a family, not one "
                         "benchmark's measurement")
    notes += _noise_notes(rows, metrics)
    return Comparison(baseline.path, contender.path, alpha, rows, geomeans,
                      metrics, pairing, notes)


def exit_code(comparison: Comparison, strict: bool = False) -> int:
    """1 when a gated metric regressed (or, with strict, when a baseline
    benchmark is missing or failed in the contender), else 0."""
    if comparison.regressions:
        return 1
    if strict and (comparison.pairing.only_in_baseline or any(
            side == "contender" for _, side, _ in comparison.pairing.failed)):
        return 1
    return 0
