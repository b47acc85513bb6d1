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
  A segment of fewer than MIN_POINTS commits cannot judge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import stdtr
from sqlalchemy import and_, select

from pmubench.base.exits import EXIT_INCONCLUSIVE, EXIT_OK, EXIT_REGRESSION
from pmubench.runs import benchjson
from pmubench.history import detect, ingest, schema
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
                pct: float, alpha: float) -> Row:
    head = float(np.median(values))
    if len(segment) < MIN_POINTS:
        return Row("", metric, None, head, None, "unjudged",
                   f"{len(segment)} commits since the last change point; {MIN_POINTS} needed")
    mean, sd, n = float(segment.mean()), float(segment.std(ddof=1)), len(segment)
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
    rows = []
    for (benchmark, metric), values in sorted(prepared.values.items()):
        sid = by_key.get((benchmark, metric))
        state = refreshed.states.get(sid) if sid is not None else None
        if state is None or len(state.medians) == 0:
            row = Row("", metric, None, float(np.median(values)), None, "unjudged",
                      f"no history on {branch}")
        else:
            start = state.changes[-1][0] if state.changes else 0
            if state.exact and zero_spread(values):
                row = judge_exact(float(state.medians[-1]), values, metric, exact_pct)
            else:
                row = judge_noisy(np.asarray(state.medians[start:]), values, metric,
                                  noisy_pct, alpha)
        row.benchmark = benchmark
        rows.append(row)
    return rows, name


def exit_code(rows: list[Row]) -> int:
    """compare.py's statuses: a regression, else judged, else nothing judged."""
    if any(r.verdict == "regression" for r in rows):
        return EXIT_REGRESSION
    return EXIT_OK if any(r.verdict != "unjudged" for r in rows) else EXIT_INCONCLUSIVE
