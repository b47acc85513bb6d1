"""Judging a head run against main's history: each (benchmark, metric) of
the head against its series' last segment (the points since its last
change point) on the same machine identity, with compare's metric model
and thresholds (verdicts/metrics.py, verdicts/thresholds.py: the same
defaults, the same `--threshold METRIC=PCT` rules), so that judge and
compare.py with the history's last run as baseline give the same verdict.

- exact counts (the model's exact kind): the head's median against the last
  point's median, as compare judges one run a side: a change beyond the
  threshold and the floor in the worse direction is a regression.
- other judged metrics: the head's median against the segment's
  per-commit medians, as a new draw of them: Student's t prediction
  interval, p = 2 P(T_{n-1} > |head - mean| / (sd sqrt(1 + 1/n))); a
  regression when p < alpha and the change is beyond the threshold and the
  floor in the worse direction. A segment of fewer than MIN_POINTS commits
  cannot judge.
  The segment leaves out spikes (one- or two-commit excursions,
  spikes.py), and its sd is never below the whole series'
  commit-to-commit noise, widened by the head run's common shift (a few
  commits on one hosted runner look far quieter than the next run, on
  another runner, will be, so a short segment alone cried wolf).
- what the model never judges (a simulator's times; the machine's info
  counts) and metrics whose threshold is off: "unjudged", with the words.

A head run that is already in the history (the same file, by content) is
judged against the points before its commit: never against itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import stdtr
from sqlalchemy import and_, select

from pmubench.base.exits import EXIT_INCONCLUSIVE, EXIT_OK, EXIT_REGRESSION
from pmubench.verdicts import metrics, thresholds
from pmubench.history import detect, ingest, schema, spikes
from pmubench.history.series import same

MIN_POINTS = 5
NO_HISTORY = "no history"


@dataclass
class Row:
    benchmark: str
    metric: str
    baseline: float | None
    head: float
    change: float | None
    verdict: str        # regression, improvement, same, unjudged
    reason: str = ""
    exact: bool = False


@dataclass
class Judged:
    """What judge found: the rows, the machine judged against ('' when
    none), and the run of the history the head file is (None when new)."""
    rows: list[Row] = field(default_factory=list)
    machine: str = ""
    known_run: tuple[int, str] | None = None     # (run id, commit)
    # The head's benchmarks no series of the machine has: new, or renamed.
    without_history: list[str] = field(default_factory=list)
    # When no machine of the history has the head's identity: the nearest
    # one's name and each fact that differs (fact, the head's, the history's).
    nearest: tuple[str, list[tuple[str, Any, Any]]] | None = None


def machines_of(conn, prepared: ingest.Prepared, name: str | None) -> list[tuple[int, str]]:  # noqa: ANN001
    m = schema.machines
    where = m.c.identity == prepared.identity
    if name:
        where = and_(where, m.c.name == name)
    return [(i, n) for i, n in conn.execute(select(m.c.id, m.c.name).where(where))]


def nearest_machine(conn, facts: dict) -> tuple[str, list[tuple[str, Any, Any]]] | None:  # noqa: ANN001
    """The machine of the history whose identity's facts differ from
    `facts` in the fewest, with those facts; None in an empty history."""
    mine = json.loads(json.dumps(facts))     # tuples as the stored JSON has them
    best = None
    for name, text in conn.execute(select(schema.machines.c.name, schema.machines.c.facts)):
        theirs = json.loads(text)
        differ = [(k, mine.get(k), theirs.get(k)) for k in sorted(set(mine) | set(theirs))
                  if mine.get(k) != theirs.get(k)]
        if best is None or len(differ) < len(best[1]):
            best = (name, differ)
    return best


def known_run(conn, prepared: ingest.Prepared, branch: str) -> tuple[int, str] | None:  # noqa: ANN001
    """(run id, commit) of the head file when the branch already holds it."""
    r = schema.runs
    row = conn.execute(select(r.c.id, r.c.commit_sha).where(and_(
        r.c.content_hash == prepared.content_hash, r.c.branch == branch))).first()
    return (row[0], row[1]) if row else None


def _verdict(change: float, beyond: bool, higher_is_better: bool) -> str:
    if not beyond:
        return "same"
    worse = change < 0 if higher_is_better else change > 0
    return "regression" if worse else "improvement"


def judge_exact(level: float, values: list[float], model: metrics.Metric,
                threshold: thresholds.Threshold) -> Row:
    head = float(np.median(values))
    if same(head, level):
        return Row("", model.name, level, head, 0.0, "same", "exact count", True)
    change = head / level - 1 if level else float("inf")
    beyond = (abs(change) * 100 > threshold.pct
              and abs(head - level) >= threshold.floor)
    return Row("", model.name, level, head, change,
               _verdict(change, beyond, model.higher_is_better),
               "exact count" + ("" if beyond else f", within {threshold.pct:g}%"), True)


def judge_noisy(segment: np.ndarray, values: list[float], model: metrics.Metric,
                threshold: thresholds.Threshold, alpha: float, floor: float = 0.0) -> Row:
    """floor: the least sd to assume (the series' own commit-to-commit
    noise)."""
    head = float(np.median(values))
    if len(segment) < MIN_POINTS:
        return Row("", model.name, None, head, None, "unjudged",
                   f"{len(segment)} commits since the last change point; {MIN_POINTS} needed")
    mean, n = float(segment.mean()), len(segment)
    sd = max(float(segment.std(ddof=1)), floor)
    change = head / mean - 1 if mean else 0.0
    if sd == 0:
        p = 0.0 if head != mean else 1.0
    else:
        p = float(2 * stdtr(n - 1, -abs(head - mean) / (sd * np.sqrt(1 + 1 / n))))
    beyond = (abs(change) * 100 > threshold.pct and p < alpha
              and abs(head - mean) >= threshold.floor)
    return Row("", model.name, mean, head, change,
               _verdict(change, beyond, model.higher_is_better), f"p {p:.2g} over {n} commits")


def _cut(state: detect.State, runs: dict, commit: str | None) -> int:
    """How many of the series' points come before commit (all without)."""
    if commit is None:
        return len(state.medians)
    for i, run in enumerate(state.runs):
        known = runs.get(int(run))
        if known is not None and known.commit == commit:
            return i
    return len(state.medians)


def judge_one(state: detect.State | None, values: list[float], model: metrics.Metric,
              threshold: thresholds.Threshold, end: int) -> Row | None:
    """One row: values against the first `end` points of the series; None
    for a noisy series to judge (judge_noisy, once the run's shift is known)."""
    head = float(np.median(values))
    if not model.judged or threshold.pct is None:
        why = model.words if not model.judged else f"not gated ({threshold.source})"
        return Row("", model.name, None, head, None, "unjudged", why, model.exact)
    if state is None or end == 0:
        return Row("", model.name, None, head, None, "unjudged", NO_HISTORY, model.exact)
    if model.exact:
        return judge_exact(float(state.medians[end - 1]), values, model, threshold)
    return None


def _flagged(prepared: ingest.Prepared) -> set[str]:
    """The head's benchmarks that say their counts move with layout."""
    return {b for b, m in prepared.values if m == metrics.LAYOUT_FLAG}


def judge(engine, branch: str, params: detect.Params, prepared: ingest.Prepared,  # noqa: ANN001
          machine: str | None, overrides: list[thresholds.Override], alpha: float
          ) -> Judged:
    """The rows of the head against the branch's history."""
    refreshed = detect.refresh(engine, branch, params)
    with engine.connect() as conn:
        found = machines_of(conn, prepared, machine)
        known = known_run(conn, prepared, branch)
        nearest = None if found else nearest_machine(conn, prepared.facts)
    if not found:
        return Judged(known_run=known, nearest=nearest)
    machine_id, name = found[0]
    by_key = {(k.benchmark, k.metric): sid for sid, k in refreshed.keys.items()
              if k.machine_id == machine_id}
    flagged = _flagged(prepared) | {k.benchmark for k in refreshed.keys.values()
                                    if k.machine_id == machine_id and k.layout_sensitive}
    rows, noisy = [], []
    for (benchmark, metric), values in sorted(prepared.values.items()):
        if metric == metrics.LAYOUT_FLAG:
            continue
        model = metrics.describe(metric, prepared.backend, benchmark in flagged)
        threshold = thresholds.resolve(metric, overrides, prepared.backend,
                                       benchmark in flagged)
        state = refreshed.states.get(by_key.get((benchmark, metric), -1))
        end = _cut(state, refreshed.runs, known[1] if known else None) if state else 0
        row = judge_one(state, values, model, threshold, end)
        if row is None:
            noisy.append((len(rows), values, model, threshold, *last_segment(state, end)))
            row = Row("", model.name, None, float(np.median(values)), None, "unjudged")
        row.benchmark = benchmark
        rows.append(row)
    _judge_noisy_rows(rows, noisy, alpha)
    known_names = {b for b, _ in by_key}
    missing = [b for b in dict.fromkeys(b for b, _ in prepared.values) if b not in known_names]
    return Judged(rows, name, known, missing)


def _judge_noisy_rows(rows: list[Row], noisy: list[tuple], alpha: float) -> None:
    """Judges the noisy rows in place, each with an sd floor of its series'
    spread widened by the run's common shift."""
    shift = run_shift([(n[1], n[4]) for n in noisy])
    for i, values, model, threshold, segment, floor in noisy:
        level = float(segment.mean()) if len(segment) else 0.0
        row = judge_noisy(segment, values, model, threshold, alpha,
                          float(np.hypot(floor, shift * level)))
        row.benchmark = rows[i].benchmark
        rows[i] = row


def run_shift(judged: list[tuple[list[float], np.ndarray]]) -> float:
    """The head run's common relative shift: the median over its noisy
    series (three or more, each with a segment) of head / level - 1. A
    hosted runner slower or faster than the history's moves every series
    at once; that much is taken as noise of this run (a real change of
    every series alike is left to the exact counts)."""
    changes = [float(np.median(v)) / seg.mean() - 1 for v, seg in judged
               if len(seg) and seg.mean()]
    return abs(float(np.median(changes))) if len(changes) >= 3 else 0.0


def spread(medians: np.ndarray) -> float:
    """The series' commit-to-commit sd: the root mean square of successive
    differences / sqrt(2), the largest 5% (steps) left out. Unlike a
    median, it keeps the shifts between hosted runners, which come often."""
    d = np.sort(np.abs(np.diff(medians)))
    d = d[:max(1, int(np.ceil(0.95 * len(d))))] if len(d) else d
    return float(np.sqrt(np.mean(d * d) / 2)) if len(d) else 0.0


def last_segment(state: detect.State, end: int) -> tuple[np.ndarray, float]:
    """The medians of the series' first `end` points since the last step
    before them, without the spikes' points (those of the spike's one or
    two commits nearer its value than its level), and those points'
    commit-to-commit noise (the sd floor)."""
    medians = np.asarray(state.medians[:end], dtype=np.float64)
    keep = np.ones(len(medians), dtype=bool)
    start = 0
    for index, _, level, value, kind in state.changes:
        if index >= end:
            continue
        if kind == "step":
            start = index
            continue
        part = medians[index:index + spikes.MAX_LENGTH]
        keep[index:index + len(part)] &= np.abs(part - value) >= np.abs(part - level)
    return medians[start:][keep[start:]], spread(medians[keep])


def exit_code(rows: list[Row]) -> int:
    """compare.py's statuses: a regression, else judged, else nothing judged."""
    if any(r.verdict == "regression" for r in rows):
        return EXIT_REGRESSION
    return EXIT_OK if any(r.verdict != "unjudged" for r in rows) else EXIT_INCONCLUSIVE
