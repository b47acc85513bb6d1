"""comparison.judge for many rows at once: the rows of one metric whose two
sides are both repetitions of one size each (n vs m) in files of one run
each, the common case of a large suite, judged as numpy columns.

    verdicts = judge_block(b, c, threshold, higher_is_better, alpha)

b (rows x n) and c (rows x m) hold the repetitions in file order; the
result holds, for every row, what judge gives for it: each side's center,
the change, p, the interval, the mode and the verdict. Same rules, same
arithmetic (the median of sorted values, (c - b) / |b|, the exact or
normal-approximation U test of stats.py): tests/python/
test_compare_batch.py holds the two equal row by row. Merged files
(rounds) and the other sample kinds stay with judge, row by row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pmubench.verdicts import stats, thresholds
from pmubench.verdicts.rows import (
    FEW_REPS, IMPROVEMENT, NO_CHANGE, NOT_GATED, REGRESSION, U_TEST)


@dataclass
class Block:
    """The judgement of each row of a block, as Python values."""
    b_centers: list[float]
    c_centers: list[float]
    changes: list[float]
    p_values: list[float]
    intervals: list[stats.Interval | None]
    mode: str
    verdicts: list[str]


def medians(values: np.ndarray) -> np.ndarray:
    """stats.median of each row. A zero median of a row holding -0.0 is
    taken from Python's sorted() (which keeps -0.0 and 0.0 in file order;
    numpy's sort need not); without a -0.0 the zeros are all one value, and
    numpy's is Python's (counts that are zero in every run, page faults,
    context switches, are most rows of a large suite)."""
    ordered = np.sort(values, axis=1)
    n = values.shape[1]
    mid = n // 2
    out = ordered[:, mid] if n % 2 else (ordered[:, mid - 1] + ordered[:, mid]) / 2
    zero = np.flatnonzero(out == 0)
    if len(zero):
        held = values[zero]
        zero = zero[((held == 0) & np.signbit(held)).any(axis=1)]
    for i in zero:
        out[i] = stats.median(values[i].tolist())
    return out


def relative_changes(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """stats.relative_change of each pair of centers."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (c - b) / np.abs(b)
    zero = b == 0
    out[zero] = np.where(c[zero] == 0, 0.0, np.copysign(np.inf, c[zero]))
    return out


def judge_block(b: np.ndarray, c: np.ndarray, threshold: thresholds.Threshold,
                higher_is_better: bool, alpha: float) -> Block:
    """judge of each row of b against the same row of c (see the module
    comment)."""
    n, m = b.shape[1], c.shape[1]
    bc, cc = medians(b), medians(c)
    change = relative_changes(bc, cc)
    p = stats.mann_whitney_p_many(b, c)
    intervals = stats.ratio_interval_many(b, c, alpha)
    if stats.min_two_sided_p(n, m) < alpha:
        mode, evidence = U_TEST, p < alpha
    else:
        mode = FEW_REPS
        evidence = np.where(cc > bc, c.min(axis=1) > b.max(axis=1),
                            c.max(axis=1) < b.min(axis=1))
    rows = len(b)
    if threshold.pct is None or (mode != U_TEST and not threshold.deterministic):
        verdicts = [NOT_GATED] * rows
    else:
        beyond = ((np.abs(change) * 100.0 > threshold.pct) & evidence
                  & (np.abs(cc - bc) >= threshold.floor))
        worse = (change < 0) if higher_is_better else (change > 0)
        kinds = np.where(beyond, np.where(worse, 0, 1), 2)
        words = (REGRESSION, IMPROVEMENT, NO_CHANGE)
        verdicts = [words[k] for k in kinds.tolist()]
    return Block(bc.tolist(), cc.tolist(), change.tolist(), p.tolist(), intervals,
                 mode, verdicts)
