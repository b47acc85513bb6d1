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

Rounds: a file merged from K runs (scripts/merge.py, ci_compare.sh
--rounds K) holds each run's repetitions in order. Repetitions of one run
share that run's machine state, and on a shared machine the state moves
between runs by more than the thresholds of times (A/A runs on the 2-core
development VM: README, "How a row is judged"), so the test of a
machine-dependent metric (every class but "deterministic") takes each run's
median as one value: K vs K. With fewer than 4 runs a side the test cannot
reach p < 0.05 and those metrics are "not gated" (mode "few rounds");
deterministic metrics keep every repetition.

When nothing deterministic is gated (no instruction-class counter, or one
that is zero in both files), `warnings` says so and what to enable: the
result then rests on times alone, or on nothing.

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
FEW_ROUNDS = "few rounds"
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
    rounds: int = 1         # runs merged into the file, in order

    def round_medians(self) -> list[float]:
        """Each run's median (the whole sample as one run when the
        repetitions do not split evenly into the file's rounds)."""
        if self.source != matching.REPETITIONS or self.n % self.rounds:
            return [stats.median(self.values)]
        size = self.n // self.rounds
        return [stats.median(self.values[i * size:(i + 1) * size])
                for i in range(self.rounds)]


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
    warnings: list[str] = field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.rows if r.verdict == verdict)

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == REGRESSION]

    @property
    def regressed_benchmarks(self) -> list[str]:
        """Each benchmark with at least one regressed metric, once, in
        row order."""
        return list(dict.fromkeys(r.benchmark for r in self.regressions))


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


def _side(sample: matching.Sample, rounds: int) -> Side:
    return Side(stats.median(sample.values), len(sample.values),
                sample.source, list(sample.values), rounds)


def rounds_of(bench: benchjson.BenchFile) -> int:
    """How many runs scripts/merge.py joined into the file (1 otherwise)."""
    try:
        return max(1, int(bench.context.get("pmubench_merged_files", 1)))
    except (TypeError, ValueError):
        return 1


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
    by_round = (threshold.metric_class not in DETERMINISTIC_CLASSES and
                max(baseline.rounds, contender.rounds) > 1)
    if (baseline.source == contender.source == matching.REPETITIONS):
        b_values, c_values = baseline.values, contender.values
        if by_round:
            b_values, c_values = baseline.round_medians(), contender.round_medians()
        p = stats.mann_whitney_p(b_values, c_values)
        interval = stats.ratio_interval(b_values, c_values, alpha)
        if stats.min_two_sided_p(len(b_values), len(c_values)) < alpha:
            mode = U_TEST
            evidence = p < alpha
        else:
            mode = FEW_ROUNDS if by_round else FEW_REPS
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


def gate_warnings(rows: list[Row]) -> list[str]:
    """A warning when a benchmark has no deterministic metric with a
    non-zero value gated: its result then rests on times alone, or on
    nothing."""
    benchmarks = list(dict.fromkeys(r.benchmark for r in rows))
    deterministic = [r for r in rows if r.threshold.pct is not None and
                     r.threshold.metric_class in DETERMINISTIC_CLASSES]
    live = {r.benchmark for r in deterministic
            if r.baseline.center != 0 or r.contender.center != 0}
    blind = [b for b in benchmarks if b not in live]
    if not blind:
        return []
    times_gated = any(r.verdict != NOT_GATED for r in rows
                      if r.benchmark in blind and
                      r.threshold.metric_class not in DETERMINISTIC_CLASSES)
    enable = ("count instructions to gate code changes exactly "
              "(--counters=instructions,... on a machine with a hardware "
              "PMU, or scripts/pmu-vm)")
    not_timed = ("no time-like metric was gated (--threshold time=off, or "
                 "too few repetitions or rounds for the test)")
    if len(blind) < len(benchmarks):
        some = (f"{len(blind)} of {len(benchmarks)} benchmarks (e.g. "
                f"{', '.join(blind[:3])}) have no instruction-class counter "
                "with a non-zero value")
        if times_gated:
            return [f"{some}: only times and other machine-dependent metrics "
                    "judge them, and a shared machine moves those between "
                    f"runs; {enable}"]
        return [f"{some} and {not_timed}: a slowdown there cannot fail this "
                f"comparison; {enable}"]
    if deterministic:
        names = ", ".join(dict.fromkeys(r.metric for r in deterministic))
        reason = f"every deterministic metric ({names}) is zero in both files"
    else:
        reason = "neither file has an instruction-class counter"
    if times_gated:
        return [f"nothing deterministic was gated: {reason}, so only times "
                "and other machine-dependent metrics decide this result, and "
                f"a shared machine moves those between runs; {enable}"]
    return [f"this comparison gated nothing: {reason}, and {not_timed}, so it "
            f"cannot fail on a slowdown; {enable}, or drop --threshold "
            "time=off and run more repetitions"]


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
        b_rounds, c_rounds = rounds_of(baseline), rounds_of(contender)
        for b_runs, c_runs in pairing.common:
            b_sample, c_sample = b_runs.sample(metric), c_runs.sample(metric)
            if b_sample is None or c_sample is None:
                continue
            b, c = _side(b_sample, b_rounds), _side(c_sample, c_rounds)
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
    notes += pairing.duplicate_notes
    for bench in (baseline, contender):
        if bench.complexity_fits:
            notes.append(f"{bench.path}: {bench.complexity_fits} complexity "
                         "fit(s) (->Complexity()'s BigO and RMS aggregates) "
                         "left out: they fit a curve over a family, not one "
                         "benchmark's measurement")
    notes += _noise_notes(rows, metrics)
    return Comparison(baseline.path, contender.path, alpha, rows, geomeans,
                      metrics, pairing, notes, gate_warnings(rows))


def exit_code(comparison: Comparison, strict: bool = False) -> int:
    """1 when a gated metric regressed (or, with strict, when a baseline
    benchmark is missing or failed in the contender), else 0."""
    if comparison.regressions:
        return 1
    if strict and (comparison.pairing.only_in_baseline or any(
            side == "contender" for _, side, _ in comparison.pairing.failed)):
        return 1
    return 0
