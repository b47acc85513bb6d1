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
"deterministic" class of thresholds.py, and every count a simulator wrote,
"callgrind/.../", whatever its class) are gated in the last two modes.
Times, cycles and cache misses are "not gated" there: on a loaded machine
they move by more than their threshold between two runs of the same binary,
and with 3 vs 3 complete separation happens by chance in 1 pair of samples
in 10, so over a suite of a hundred rows an unchanged binary "regressed"
dozens of times (an A/A run of the suite: docs/comparing.md, "How a row is
judged").

Rounds: a file merged from K runs (scripts/merge.py, ci_compare.sh
--rounds K) holds each run's repetitions in order. Repetitions of one run
share that run's machine state, and on a shared machine the state moves
between runs by more than the thresholds of times (A/A runs on the 2-core
development VM: docs/comparing.md, "How a row is judged"), so the test of a
machine-dependent metric (every class but "deterministic") takes each run's
median as one value: K vs K. With fewer than 4 runs a side the test cannot
reach p < 0.05 and those metrics are "not gated" (mode "few rounds");
deterministic metrics keep every repetition.

Inconclusive: when no row could catch a slowdown (gates.py: no
instruction-class count that is non-zero, and no machine-dependent metric
the test could judge), `inconclusive` holds the cause computed from the
files ("no instruction-class counter in either file; times need 4 rounds a
side for the test at alpha 0.05, and these files have 2 a side ..."), and
exit_code is 4, not 0: a comparison that could not fail is no pass.
When some benchmarks are blind and others gated, `warnings` names them.
`refusals` lists --threshold rules that gate nothing on these files
(compare.py exits 2 on them).

What measured the files (machines.py): two files of different counting
backends, valgrind versions or cache geometries are refused (BadInput);
`backend` describes a simulating backend for the header of every format;
`machine_differences` lists how the two machines differ (host, CPUs,
caches, PMUs), shown at the top of every format.

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

import collections
import fnmatch
import itertools
import math
import operator
from itertools import repeat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from pmubench.base.exits import EXIT_INCONCLUSIVE, EXIT_OK, EXIT_REGRESSION
from pmubench.runs import benchjson
from pmubench.verdicts import (alloc_sites, attribution, batch, gates, spread, stats,
                               thresholds, work)
from pmubench.verdicts import metrics as metrics_model
from pmubench.runs import machines, matching
# The row model lives in rows.py; its names are comparison's too.
from pmubench.verdicts.rows import (  # noqa: F401
    FEW_REPS, FEW_ROUNDS, IMPROVEMENT, NO_CHANGE, NOT_GATED, REGRESSION, THRESHOLD_ONLY,
    U_TEST, Row, Side)

# Context keys whose difference between the two files is worth a note
# (not mhz_per_cpu: Google Benchmark reads the current clock, which moves;
# the machine's keys, machines.MACHINE_KEYS, go to the top of the report).
_CONTEXT_KEYS = (
    "library_build_type", "pmubench_version", "pmubench_events",
    "pmubench_pinned", "pmubench_exclude_kernel", "pmubench_notice")


_VERDICT = operator.attrgetter("verdict")
_BASELINE_SOURCE = operator.attrgetter("baseline.source")
_BASELINE_VALUES = operator.attrgetter("baseline.values")
_METRIC = operator.attrgetter("metric")
_WORK = operator.attrgetter("work")
_NEW = tuple.__new__


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
    # Why nothing here could catch a slowdown (None: something could).
    inconclusive: str | None = None
    # --threshold rules that gate nothing on these files (gates.py).
    refusals: list[str] = field(default_factory=list)
    backend: machines.Backend = machines.Backend(machines.PERF_EVENT, None, None)
    machine_differences: list[str] = field(default_factory=list)
    # --strict: also fail on a baseline benchmark missing or failed in the
    # contender (set by the caller; result_word and exit_code read it).
    strict: bool = False
    # Why each changed row changed, from the files' profiles
    # (attribution.py), and why a changed row has none.
    attributions: list[attribution.Attribution] = field(default_factory=list)
    attribution_notes: list[str] = field(default_factory=list)
    # Where a changed allocation row's allocations come from (alloc_sites.py).
    alloc_sites: list[alloc_sites.AllocSites] = field(default_factory=list)
    alloc_site_notes: list[str] = field(default_factory=list)
    # What the formats print, decided here (facts(); renderers only read):
    # the metrics in display order (under a simulated comparison the
    # metrics whose rows are all the simulator's unjudged times last), the
    # rows changed beyond their threshold in benchmarks nothing could gate
    # (not the simulator's times), what gates the simulated counts, and
    # the confidence level's label ("95%").
    metric_order: list[str] = field(default_factory=list)
    ungated_changed: list[Row] = field(default_factory=list)
    simulated_gate: str | None = None
    confidence: str = ""

    def count(self, verdict: str) -> int:
        return operator.countOf(map(_VERDICT, self.rows), verdict)

    def counts(self) -> dict[str, int]:
        """count() of each verdict (regression, improvement, no
        significant change, not gated, in that order), in one pass over
        the rows."""
        seen = collections.Counter(map(_VERDICT, self.rows))
        return {v: seen[v] for v in (REGRESSION, IMPROVEMENT, NO_CHANGE, NOT_GATED)}

    def by_metric(self) -> dict[str, list[Row]]:
        """Each metric's rows, in order (rows_by_metric)."""
        return rows_by_metric(self.rows)

    @property
    def result(self) -> str:
        """'fail', 'inconclusive' or 'pass' (result_word)."""
        return result_word(self)

    @property
    def regressions(self) -> list[Row]:
        # In C: the formats ask several times, of hundreds of thousands of rows.
        return list(itertools.compress(self.rows, map(
            operator.eq, map(_VERDICT, self.rows), itertools.repeat(REGRESSION))))

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
    # sample.values is the sample's own list (BenchmarkRuns.sample makes one).
    return Side(stats.median(sample.values), len(sample.values),
                sample.source, sample.values, rounds)


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


def test_samples(baseline: Side, contender: Side, threshold: thresholds.Threshold
                 ) -> tuple[list[float], list[float]] | None:
    """The two samples the test compares (each run's median for a
    machine-dependent metric of a merged file), or None without
    repetitions on both sides."""
    if not baseline.source == contender.source == matching.REPETITIONS:
        return None
    if not threshold.deterministic and max(baseline.rounds, contender.rounds) > 1:
        return baseline.round_medians(), contender.round_medians()
    return baseline.values, contender.values


def judge(baseline: Side, contender: Side, threshold: thresholds.Threshold,
          higher_is_better: bool, alpha: float,
          tested: tuple[float, stats.Interval | None] | None = None) -> Judgement:
    """The verdict for one metric of one benchmark (see the module comment
    for the rules). tested: the p-value and interval of test_samples when
    the caller computed them (compare() does, many rows at once)."""
    change = stats.relative_change(baseline.center, contender.center)
    p = interval = None
    by_round = (not threshold.deterministic and
                max(baseline.rounds, contender.rounds) > 1)
    samples = test_samples(baseline, contender, threshold)
    if samples is not None:
        b_values, c_values = samples
        if tested is not None:
            p, interval = tested
        else:
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
    if threshold.pct is None or (mode != U_TEST and not threshold.deterministic):
        verdict = NOT_GATED
    elif (abs(change) * 100.0 > threshold.pct and evidence and
          abs(contender.center - baseline.center) >= threshold.floor):
        worse = (change < 0) if higher_is_better else (change > 0)
        verdict = REGRESSION if worse else IMPROVEMENT
    else:
        verdict = NO_CHANGE
    return Judgement(verdict, mode, change, p, interval)


def _noise_notes(by_metric: dict[str, list[Row]], metrics: list[str],
                 matrices: dict[str, list[np.ndarray]] | None = None) -> list[str]:
    """Notes for metrics whose baseline spread is larger than the threshold:
    their verdicts rest on the test and need more repetitions to fire.
    by_metric holds each metric's rows (compare groups them once);
    matrices, when given, each metric's baseline blocks, whose rows are
    the values of its rows (spread.median_cv)."""
    notes = []
    for metric in metrics:
        rows = by_metric.get(metric, [])
        tested = list(itertools.compress(rows, map(
            operator.eq, map(_BASELINE_SOURCE, rows), itertools.repeat(matching.REPETITIONS))))
        if not tested:
            continue
        threshold = tested[-1].threshold.pct
        typical = spread.median_cv(lambda: list(map(_BASELINE_VALUES, tested)), threshold,
                                   matrices.get(metric) if matrices else None)
        if threshold is None or typical is None:
            continue
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


def _test_many(pending: list[tuple[int, list[float], list[float]]], alpha: float,
               progress: Callable[[int], None] | None
               ) -> dict[int, tuple[float, stats.Interval | None]]:
    """The test of many rows at once: {row index: (p, interval)}, grouped
    by sample sizes so numpy does each group in one go."""
    groups: dict[tuple[int, int], list[tuple[int, list[float], list[float]]]] = {}
    for item in pending:
        groups.setdefault((len(item[1]), len(item[2])), []).append(item)
    out: dict[int, tuple[float, stats.Interval | None]] = {}
    chunk = 20000
    for items in groups.values():
        for start in range(0, len(items), chunk):
            part = items[start:start + chunk]
            b = _matrix([i[1] for i in part])
            c = _matrix([i[2] for i in part])
            ps = stats.mann_whitney_p_many(b, c)
            intervals = stats.ratio_interval_many(b, c, alpha)
            for (index, _, _), p, interval in zip(part, ps, intervals):
                out[index] = (float(p), interval)
            if progress:
                progress(len(part))
    return out


def _matrix(samples: list[list[float]]) -> np.ndarray:
    """np.array(samples, dtype=float) for samples of one size, through one
    flat iterator (several times faster on hundreds of thousands)."""
    size = len(samples[0])
    flat = np.fromiter(itertools.chain.from_iterable(samples), dtype=float,
                       count=len(samples) * size)
    return flat.reshape(len(samples), size)


def compare(baseline: benchjson.BenchFile, contender: benchjson.BenchFile,
            overrides: list[thresholds.Override] | None = None,
            alpha: float = 0.05, metric_patterns: list[str] | None = None,
            progress: Callable[[str, int, int], None] | None = None
            ) -> Comparison:
    """Compares two loaded files. Raises benchjson.BadInput (see
    matching.pair, machines.check_backends, gates.check_selectors) when
    they cannot be compared. progress, when given, is told
    (what, done, total) as rows are tested."""
    overrides = overrides or []
    backend = machines.check_backends(baseline, contender)
    b_names, c_names = baseline.metric_names(), contender.metric_names()
    file_metrics = list(dict.fromkeys(b_names + c_names))
    gates.check_selectors(overrides, metric_patterns, file_metrics,
                          baseline.path, contender.path)
    pairing = matching.pair(baseline, contender)
    metrics = selected_metrics = [m for m in file_metrics if selected(m, metric_patterns)]
    rows, matrices = _judged_rows(pairing, metrics, overrides, (baseline, contender),
                                  backend, alpha, progress)
    by_metric = rows_by_metric(rows)
    metrics = [m for m in metrics if m in by_metric]
    geomeans = [_geomean(metric, by_metric[metric]) for metric in metrics]
    notes = _comparison_notes(baseline, contender, pairing, by_metric, metrics, matrices)
    # filter in C: nearly every row's work is the same in both files.
    notes += [n for n in [work.note({r.benchmark: r.work for r in filter(_WORK, rows)})] if n]
    seen = gates.MetricsSeen(file_metrics, selected_metrics,
                             _lacking(baseline.path, b_names, contender.path, c_names))
    reason = gates.inconclusive_reason(rows, seen, alpha,
                                       baseline.path, contender.path) if rows else None
    # The rows that catch a slowdown, found once for the warnings and facts.
    catching = list(filter(gates.catches_slowdown, rows))
    warnings = (gates.blind_warnings(rows, alpha, baseline.path, contender.path, catching)
                if reason is None else [])
    attributions, attribution_notes = attribution.attribute(
        rows, pairing, baseline.path, contender.path)
    sites, site_notes = alloc_sites.attribute(rows, pairing, baseline.path,
                                              contender.path)
    return facts(Comparison(
        baseline.path, contender.path, alpha, rows, geomeans, metrics, pairing,
        notes, warnings, reason,
        gates.refused_thresholds(rows, overrides, alpha, baseline.path, contender.path),
        backend, machines.machine_differences(baseline.context, contender.context),
        attributions=attributions, attribution_notes=attribution_notes,
        alloc_sites=sites, alloc_site_notes=site_notes), catching)


def rows_by_metric(rows: list[Row]) -> dict[str, list[Row]]:
    """Each metric's rows, in order. Rows come metric by metric: each run
    of one metric is cut in C (itertools.groupby), not appended row by
    row."""
    out: dict[str, list[Row]] = {}
    for metric, group in itertools.groupby(rows, _METRIC):
        out.setdefault(metric, []).extend(group)
    return out


def facts(c: Comparison, catching: list[Row] | None = None) -> Comparison:
    """Sets what every format prints and no renderer may decide, of the
    comparison as a whole (each row's own facts, changed_beyond,
    simulator_time and exact, are found as it is made: _row_facts): its
    metric_order, ungated_changed, simulated_gate and confidence. Returns
    c. catching, when given, is the rows that catch a slowdown
    (gates.blind_benchmarks)."""
    times = ({r.metric for r in c.rows if r.simulator_time}
             if c.backend.simulated else set())
    if times:
        times -= {r.metric for r in c.rows if not r.simulator_time}
    c.metric_order = ([m for m in c.metrics if m not in times]
                      + [m for m in c.metrics if m in times])
    blind = gates.blind_benchmarks(c.rows, catching)
    c.ungated_changed = [r for r in c.rows if r.benchmark in blind
                         and r.verdict == NOT_GATED and r.changed_beyond
                         and not r.simulator_time] if blind else []
    c.simulated_gate = thresholds.simulated_gate_text(
        list({id(r.threshold): r.threshold for r in c.rows}.values()))
    c.confidence = stats.confidence_label(c.alpha)
    return c


def _row_facts(row: Row, simulated: bool) -> Row:
    """row with its facts: the change is beyond the metric's threshold and
    floor (gates.changed_beyond); the row is a simulator's time that no
    verdict judged (valgrind's, not the code's); the metric is an exact
    count, printed with all its digits."""
    return row._replace(changed_beyond=gates.changed_beyond(row),
                        simulator_time=(simulated and row.verdict == NOT_GATED
                                        and thresholds.is_time(row.metric)),
                        exact=row.threshold.deterministic)


def _lacking(b_path: str, b_names: list[str], c_path: str, c_names: list[str]
             ) -> dict[str, str]:
    """Each metric only one file has, with the path of the file lacking it."""
    b, c = set(b_names), set(c_names)
    return {**{m: c_path for m in b - c}, **{m: b_path for m in c - b}}


def _layout_sensitive(*groups: matching.BenchmarkRuns) -> bool:
    """True when a run of either side says its counts move with layout."""
    flag = benchjson.LAYOUT_SENSITIVE_FIELD
    # The membership test first: most runs have no flag (a call per run
    # was a tenth of comparing 180,000 runs a file).
    return any(flag in r.raw and metrics_model.is_layout_sensitive(r.raw)
               for g in groups for r in g.iterations + list(g.aggregates.values())
               if r.raw)


class _Block(NamedTuple):
    """Rows of one metric and threshold whose sides are n vs m repetitions
    of files of one run each, judged at once (batch.py): their slots (places
    in row order), benchmarks and units, and the values, a row each; the
    values' own lists when staged row by row (None: the matrices' rows)."""
    metric: str
    threshold: thresholds.Threshold
    higher: bool
    slots: list[int]
    names: list[str]
    units: list[str]
    b: np.ndarray
    c: np.ndarray
    b_lists: list[list[float]] | None = None
    c_lists: list[list[float]] | None = None


def _judged_rows(pairing: matching.Pairing, metrics: list[str],
                 overrides: list[thresholds.Override],
                 files: tuple[benchjson.BenchFile, benchjson.BenchFile],
                 backend: machines.Backend, alpha: float,
                 progress: Callable[[str, int, int], None] | None
                 ) -> tuple[list[Row], dict[str, list[np.ndarray]] | None]:
    """Every row with its verdict and facts, in order (metric by metric, benchmarks
    in pairing order), and, when every row was judged in blocks read from
    the files' columns, each metric's baseline matrices (the values of its
    rows, a row each; None otherwise). Two files of one run each whose
    benchmarks all have repetitions on both sides are judged a column at a
    time, a block per metric and sample sizes (_column_blocks); any other
    pair of files row by row first (_stage_rows: the sides, then the tests,
    many rows at once, then the verdicts), with blocks where it can."""
    rounds = rounds_of(files[0]), rounds_of(files[1])
    blocks = (_column_blocks(pairing, metrics, overrides, backend.name, files)
              if rounds == (1, 1) else None)
    staged: list[tuple] = []
    pending: list[tuple[int, list[float], list[float]]] = []
    matrices: dict[str, list[np.ndarray]] | None = None
    if blocks is not None:
        matrices = {}
        for block in blocks:
            matrices.setdefault(block.metric, []).append(block.b)
    else:
        staged, pending, blocks = _stage_rows(pairing, metrics, overrides, rounds,
                                              backend.name)
    in_blocks = sum(len(block.slots) for block in blocks)
    tested = _rows_tested_callback(progress, len(pending) + in_blocks)
    results = _test_many(pending, alpha, tested)
    changed_work = _work_changes(pairing, files)
    slots: list = [None] * (len(staged) + in_blocks)
    for index, (slot, name, metric, unit, b, c, threshold, higher) in enumerate(staged):
        j = judge(b, c, threshold, higher, alpha, results.get(index))
        slots[slot] = _row_facts(Row(name, metric, unit, b, c, j.change, j.p_value,
                                     j.interval, j.mode, threshold, higher, j.verdict,
                                     changed_work.get(name)), backend.simulated)
    for block in blocks:
        _judge_block(block, alpha, changed_work, backend.simulated, slots)
        if tested:
            tested(len(block.slots))
    return slots, matrices


def _work_changes(pairing: matching.Pairing,
                  files: tuple[benchjson.BenchFile, benchjson.BenchFile]) -> dict:
    """{benchmark: work.change} where the work changed. Files of one shape
    without a rate (items or bytes per second) and without labels have no
    change to find: that is said without a look at each benchmark."""
    columns = [f.metric_columns() for f in files]
    if all(c is not None and not any(rate in c for rate in benchjson.RATE_METRICS)
           for c in columns) and not any(f.has_labels() for f in files):
        return {}
    return {b.name: w for b, c in pairing.common
            for w in [work.change(b, c)] if w is not None}


def _judge_block(block: _Block, alpha: float, changed_work: dict, simulated: bool,
                 slots: list) -> None:
    """The rows of one block judged at once (batch.py), each put in its
    slot with its facts (as _row_facts finds them, a column at a time)."""
    j = batch.judge_block(block.b, block.c, block.threshold, block.higher, alpha)
    n, m = block.b.shape[1], block.c.shape[1]
    b_lists = block.b.tolist() if block.b_lists is None else map(list, block.b_lists)
    c_lists = block.c.tolist() if block.c_lists is None else map(list, block.c_lists)
    threshold, source = block.threshold, matching.REPETITIONS
    timed = simulated and thresholds.is_time(block.metric)
    # Each Side and Row made in C, by tuple.__new__ over the columns (what
    # their _make does, without its Python call a row).
    rows = map(_NEW, repeat(Row), zip(
        block.names, repeat(block.metric), block.units,
        map(_NEW, repeat(Side), zip(j.b_centers, repeat(n), repeat(source), b_lists, repeat(1))),
        map(_NEW, repeat(Side), zip(j.c_centers, repeat(m), repeat(source), c_lists, repeat(1))),
        j.changes, j.p_values, j.intervals, repeat(j.mode), repeat(threshold),
        repeat(block.higher), j.verdicts,
        map(changed_work.get, block.names) if changed_work else repeat(None),
        gates.changed_beyond_block(j.changes, j.b_centers, j.c_centers, threshold),
        map(operator.eq, j.verdicts, repeat(NOT_GATED)) if timed else repeat(False),
        repeat(threshold.deterministic)))
    count = len(block.slots)
    if count and block.slots[-1] - block.slots[0] == count - 1:   # one stretch
        slots[block.slots[0]:block.slots[0] + count] = rows
    else:
        for slot, row in zip(block.slots, rows):
            slots[slot] = row


def _column_blocks(pairing: matching.Pairing, metrics: list[str],
                   overrides: list[thresholds.Override], backend: str,
                   files: tuple[benchjson.BenchFile, benchjson.BenchFile]
                   ) -> list[_Block] | None:
    """Every row as blocks read from the files' metric columns, or None
    unless both files have them (every run of one shape: no layout flag,
    no failed run) and every benchmark has repetitions on both sides.
    A metric both files have is then a row of every benchmark; one only a
    file has, none."""
    b_cols, c_cols = files[0].metric_columns(), files[1].metric_columns()
    if b_cols is None or c_cols is None:
        return None
    by_size: dict[tuple[int, int], list[int]] = {}
    for i, (b, c) in enumerate(pairing.common):
        if len(b.indexes) < 2 or len(c.indexes) < 2:
            return None
        by_size.setdefault((len(b.indexes), len(c.indexes)), []).append(i)
    where = [(ids, np.array([pairing.common[i][0].indexes for i in ids]),
              np.array([pairing.common[i][1].indexes for i in ids])) for ids in by_size.values()]
    names = [b.name for b, _ in pairing.common]
    blocks, base = [], 0
    for metric in metrics:
        if metric not in b_cols or metric not in c_cols:
            continue
        threshold = thresholds.resolve(metric, overrides, backend, False)
        higher = benchjson.is_higher_better(metric)
        timed = metric in benchjson.TIME_METRICS
        b_all, c_all = np.array(b_cols[metric], dtype=float), np.array(c_cols[metric], dtype=float)
        for ids, b_at, c_at in where:
            units = [pairing.common[i][0].time_unit if timed else "" for i in ids]
            blocks.append(_Block(metric, threshold, higher, [base + i for i in ids],
                                 [names[i] for i in ids], units, b_all[b_at], c_all[c_at]))
        base += len(pairing.common)
    return blocks


def _stage_rows(pairing: matching.Pairing, metrics: list[str],
                overrides: list[thresholds.Override], rounds: tuple[int, int],
                backend: str) -> tuple[list[tuple], list[tuple[int, list[float], list[float]]],
                                       list[_Block]]:
    """Every row before its verdict, each with its slot (its place in row
    order). Rows whose sides are both repetitions, in files of one run
    each, go into blocks, one per metric, layout flag and sample sizes. The
    others are staged: (slot, benchmark, metric, unit, baseline side,
    contender side, threshold, higher_is_better), with the samples the
    test compares as (index in staged, baseline sample, contender sample)."""
    staged: list[tuple] = []
    pending: list[tuple[int, list[float], list[float]]] = []
    blocks: dict[tuple, list[tuple]] = {}
    layout = [_layout_sensitive(b, c) for b, c in pairing.common]
    columns = [(b.columns(), c.columns()) for b, c in pairing.common]
    by_block = rounds == (1, 1)
    slot = 0
    for metric in metrics:
        by_layout = {flag: thresholds.resolve(metric, overrides, backend, flag)
                     for flag in (False, True)}
        higher = benchjson.is_higher_better(metric)
        time_metric = metric in benchjson.TIME_METRICS
        for (b_runs, c_runs), sensitive, (b_cols, c_cols) in zip(pairing.common, layout,
                                                                  columns):
            b_values, c_values = b_cols.get(metric, ()), c_cols.get(metric, ())
            threshold = by_layout[sensitive]
            unit = b_runs.time_unit if time_metric else ""
            if by_block and len(b_values) > 1 and len(c_values) > 1:  # the common case
                key = (metric, sensitive, len(b_values), len(c_values))
                block = blocks.get(key)
                if block is None:
                    block = blocks[key] = (threshold, higher, [])
                block[2].append((slot, b_runs.name, unit, b_values, c_values))
                slot += 1
                continue
            b_sample, c_sample = b_runs.sample(metric), c_runs.sample(metric)
            if b_sample is None or c_sample is None:
                continue
            b, c = _side(b_sample, rounds[0]), _side(c_sample, rounds[1])
            samples = test_samples(b, c, threshold)
            if samples is not None:
                pending.append((len(staged), *samples))
            staged.append((slot, b_runs.name, metric, unit, b, c, threshold, higher))
            slot += 1
    return staged, pending, [
        _Block(key[0], threshold, higher, [i[0] for i in items], [i[1] for i in items],
               [i[2] for i in items], _matrix([i[3] for i in items]),
               _matrix([i[4] for i in items]), [i[3] for i in items], [i[4] for i in items])
        for key, (threshold, higher, items) in blocks.items()]


def _rows_tested_callback(progress: Callable[[str, int, int], None] | None,
                          total: int) -> Callable[[int], None] | None:
    """The callback _test_many calls with the rows of each group it tested:
    it tells progress how many of the total are done. None without
    progress."""
    if not progress:
        return None
    done = [0]

    def tested(count: int) -> None:
        done[0] += count
        progress("testing rows", done[0], total)
    return tested


def _geomean(metric: str, rows: list[Row]) -> Geomean:
    """The metric's geomean row: over the rows whose centers are both
    positive."""
    ratio, count = stats.geomean_ratio(
        [(r.baseline.center, r.contender.center) for r in rows])
    return Geomean(metric, ratio - 1.0 if count else math.nan, count)


def _comparison_notes(baseline: benchjson.BenchFile, contender: benchjson.BenchFile,
                      pairing: matching.Pairing, by_metric: dict[str, list[Row]],
                      metrics: list[str], matrices: dict[str, list[np.ndarray]] | None
                      ) -> list[str]:
    """The notes of a comparison: context differences, duplicate names,
    complexity fits left out, metrics noisier than their threshold (of
    each metric's rows in by_metric; matrices as _noise_notes takes them)."""
    notes = _context_notes(baseline.context, contender.context)
    notes += pairing.duplicate_notes
    for bench in (baseline, contender):
        if bench.complexity_fits:
            notes.append(f"{bench.path}: {bench.complexity_fits} complexity "
                         "fit(s) (->Complexity()'s BigO and RMS aggregates) "
                         "left out: they fit a curve over a family, not one "
                         "benchmark's measurement")
    notes += _noise_notes(by_metric, metrics, matrices)
    return notes


def exit_code(comparison: Comparison, strict: bool | None = None,
              allow_inconclusive: bool = False) -> int:
    """1 when a gated metric regressed (or, with strict, when a baseline
    benchmark is missing or failed in the contender); else 4 when the
    comparison is inconclusive (0 with allow_inconclusive); else 0."""
    if strict is None:
        strict = comparison.strict
    if comparison.regressions:
        return EXIT_REGRESSION
    if strict and (comparison.pairing.only_in_baseline or any(
            side == "contender" for _, side, _ in comparison.pairing.failed)):
        return EXIT_REGRESSION
    if comparison.inconclusive is not None and not allow_inconclusive:
        return EXIT_INCONCLUSIVE
    return EXIT_OK


def result_word(comparison: Comparison) -> str:
    """'fail', 'inconclusive' or 'pass': what every format's headline says
    (inconclusive even when --allow-inconclusive makes the exit 0)."""
    if exit_code(comparison, allow_inconclusive=True) != EXIT_OK:
        return "fail"
    return "inconclusive" if comparison.inconclusive is not None else "pass"
