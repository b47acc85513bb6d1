"""Judging a head run against main's history: each (benchmark, metric) of
the head against its series' last segment (the points since its last
change point) on the same machine identity.

- exact series: the head's value against the level; a change in the worse
  direction beyond exact_pct percent is a regression (the counts are exact,
  so any change is real; the threshold says which are worth failing for).
- other series: the head's median against the segment's per-commit
  medians, as a new draw of them: Student's t prediction interval, p =
  2 P(T_{n-1} > |head - mean| / (sd sqrt(1 + 1/n))); a regression when
  p < alpha and the change is beyond noisy_pct in the worse direction.
  A segment of fewer than MIN_POINTS commits cannot judge. The segment
  leaves out spikes (one- or two-commit excursions, spikes.py), and its
  sd is never below the whole series' commit-to-commit noise (spikes.noise):
  a few commits on one hosted runner look far quieter than the next run,
  on another runner, will be, so a short segment alone cried wolf.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import stdtr
from sqlalchemy import and_, select

from pmubench.base.exits import EXIT_INCONCLUSIVE, EXIT_OK, EXIT_REGRESSION
from pmubench.runs import benchjson
from pmubench.history import detect, ingest, schema, spikes
from pmubench.history.series import same, zero_spread

MIN_POINTS = 5


@dataclass
class Row:
    benchmark: str
    metric: str
    baseline: float | None
    head: float
    change: float | None
    verdict: str        # regression, improvement, same, unjudged
    reason: str = ""


def machines_of(conn, prepared: ingest.Prepared, name: str | None) -> list[tuple[int, str]]:  # noqa: ANN001
    m = schema.machines
    where = m.c.identity == prepared.identity
    if name:
        where = and_(where, m.c.name == name)
    return [(i, n) for i, n in conn.execute(select(m.c.id, m.c.name).where(where))]


def _worse(change: float, metric: str) -> bool:
    return change < 0 if benchjson.is_higher_better(metric) else change > 0


def judge_exact(level: float, values: list[float], metric: str, pct: float) -> Row:
    head = float(np.median(values))
    change = head / level - 1 if level else 0.0
    if same(head, level):
        return Row("", metric, level, head, 0.0, "same")
    beyond = abs(change) * 100 > pct
    verdict = ("regression" if _worse(change, metric) else "improvement") if beyond else "same"
    return Row("", metric, level, head, change, verdict,
               "exact count" + ("" if beyond else f", within {pct:g}%"))


def judge_noisy(segment: np.ndarray, values: list[float], metric: str,
                pct: float, alpha: float, floor: float = 0.0) -> Row:
    """floor: the least sd to assume (the series' own commit-to-commit
    noise)."""
    head = float(np.median(values))
    if len(segment) < MIN_POINTS:
        return Row("", metric, None, head, None, "unjudged",
                   f"{len(segment)} commits since the last change point; {MIN_POINTS} needed")
    mean, n = float(segment.mean()), len(segment)
    sd = max(float(segment.std(ddof=1)), floor)
    change = head / mean - 1 if mean else 0.0
    if sd == 0:
        p = 0.0 if head != mean else 1.0
    else:
        p = float(2 * stdtr(n - 1, -abs(head - mean) / (sd * np.sqrt(1 + 1 / n))))
    beyond = abs(change) * 100 > pct and p < alpha
    verdict = ("regression" if _worse(change, metric) else "improvement") if beyond else "same"
    return Row("", metric, mean, head, change, verdict, f"p {p:.2g} over {n} commits")


def judge(engine, branch: str, params: detect.Params, prepared: ingest.Prepared,  # noqa: ANN001
          machine: str | None, exact_pct: float, noisy_pct: float, alpha: float
          ) -> tuple[list[Row], str]:
    """The rows and the machine name judged against ('' when none)."""
    refreshed = detect.refresh(engine, branch, params)
    with engine.connect() as conn:
        found = machines_of(conn, prepared, machine)
    if not found:
        return [], ""
    machine_id, name = found[0]
    by_key = {(k.benchmark, k.metric): sid for sid, k in refreshed.keys.items()
              if k.machine_id == machine_id}
    rows, noisy = [], []
    for (benchmark, metric), values in sorted(prepared.values.items()):
        sid = by_key.get((benchmark, metric))
        state = refreshed.states.get(sid) if sid is not None else None
        row = Row(benchmark, metric, None, float(np.median(values)), None, "unjudged",
                  f"no history on {branch}")
        if state is not None and len(state.medians) and state.exact and zero_spread(values):
            row = judge_exact(float(state.medians[-1]), values, metric, exact_pct)
            row.benchmark = benchmark
        elif state is not None and len(state.medians):
            noisy.append((len(rows), benchmark, values, metric, *last_segment(state)))
        rows.append(row)
    shift = run_shift([(n[2], n[4]) for n in noisy])
    for i, benchmark, values, metric, segment, floor in noisy:
        level = float(segment.mean()) if len(segment) else 0.0
        rows[i] = judge_noisy(segment, values, metric, noisy_pct, alpha,
                              float(np.hypot(floor, shift * level)))
        rows[i].benchmark = benchmark
    return rows, name


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


def last_segment(state: detect.State) -> tuple[np.ndarray, float]:
    """The medians since the last step, without the spikes' points (those
    of the spike's one or two commits nearer its value than its level), and
    the whole series' commit-to-commit noise (the sd floor)."""
    medians = np.asarray(state.medians, dtype=np.float64)
    keep = np.ones(len(medians), dtype=bool)
    start = 0
    for index, _, level, value, kind in state.changes:
        if kind == "step":
            start = index
            continue
        part = medians[index:index + spikes.MAX_LENGTH]
        keep[index:index + len(part)] &= np.abs(part - value) >= np.abs(part - level)
    return medians[start:][keep[start:]], spread(medians[keep])


def unjudged_line(rows: list[Row]) -> str:
    """One line for every unjudged row: their count and reasons, most
    common first ('' when none; the list is in --format json)."""
    reasons: dict[str, int] = {}
    for r in rows:
        if r.verdict == "unjudged":
            reason = (f"with under {MIN_POINTS} commits since the last change point"
                      if "commits since" in r.reason else r.reason)
            reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return ""
    parts = ", ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda i: -i[1]))
    return (f"  unjudged: {sum(reasons.values())} of {len(rows)} series ({parts}; "
            "the list: --format json)")


def exit_code(rows: list[Row]) -> int:
    """compare.py's statuses: a regression, else judged, else nothing judged."""
    if any(r.verdict == "regression" for r in rows):
        return EXIT_REGRESSION
    return EXIT_OK if any(r.verdict != "unjudged" for r in rows) else EXIT_INCONCLUSIVE
