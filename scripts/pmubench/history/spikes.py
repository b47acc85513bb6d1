"""Excursions of one or two commits that return: a regression fixed in the
next commit, or an outlier run. Each is found against the median of the K
commits on either side and the series' own noise, estimated robustly from
its commit-to-commit differences (median |x[i] - x[i-1]| / 0.954 is the
deviation of Gaussian noise, and a few steps or spikes do not move it).

An excursion is kept when every one of its points is beyond the level on
the same side, with a p-value (normal, Sidak-corrected over the series'
length, since the point is the most extreme of n) below max_pvalue, and the
two sides agree (they differ by less than a third of the excursion) and
the commits just outside it are nearer the level than half the excursion:
the level returned, so it is not a step (a step of three commits is not
taken for a spike and a commit).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import ndtr

K = 4                       # commits on either side that give the level
MAX_LENGTH = 2              # the longest excursion; longer ones are steps
# sd of (x - median of 2K neighbours) / sd of x, for Gaussian noise: the
# median's variance is about pi / (2 * 2K) of one value's.
LEVEL_NOISE = float(np.sqrt(1 + np.pi / (4 * K)))


def noise(x: np.ndarray) -> float:
    """The series' commit-to-commit deviation, robust to steps and spikes."""
    return float(np.median(np.abs(np.diff(x)))) / 0.954 if len(x) > 1 else 0.0


def p_value(deviation: float, sd: float, n: int) -> float:
    """Two-sided normal p of deviation / sd, corrected for the best of n."""
    if sd == 0:
        return 0.0 if deviation else 1.0
    p = float(2 * ndtr(-abs(deviation) / (sd * LEVEL_NOISE)))
    return float(-np.expm1(n * np.log1p(-p))) if 0 < p < 1 else p


def _candidates(x: np.ndarray, sd: float, limit: float) -> np.ndarray:
    """Indexes whose distance to their centred running median could pass:
    a cheap filter before the exact test of each."""
    if len(x) < 2 * K + 1:
        return np.arange(len(x))
    med = np.median(sliding_window_view(x, 2 * K + 1), axis=1)
    far = np.abs(x[K:-K] - med) > 0.5 * limit * sd
    return np.concatenate([np.arange(K), K + np.flatnonzero(far),
                           np.arange(len(x) - K, len(x))])


def _median(values: list[float]) -> float:
    """np.median of a few floats, in Python: the same value (the middle
    one, or the two middle ones' sum halved), without numpy's per-call cost
    (a third of a detect after one run went to np.median of 2 to 4 values)."""
    s = sorted(values)
    half = len(s) // 2
    return s[half] if len(s) % 2 else (s[half - 1] + s[half]) / 2


def _test(x: np.ndarray, i: int, length: int, sd: float, max_pvalue: float):
    """(p, level, mean value) of x[i:i+length] as an excursion, or None."""
    left, right = x[max(0, i - K):i].tolist(), x[i + length:i + length + K].tolist()
    if len(left) < 2 or len(right) < 2:
        return None
    lm, rm = _median(left), _median(right)
    level = (lm + rm) / 2
    points = x[i:i + length].tolist()
    dev = [v - level for v in points]
    if not (all(d > 0 for d in dev) or all(d < 0 for d in dev)):
        return None
    smallest = min(abs(d) for d in dev)
    # The level returned (the sides agree) and the excursion is whole (the
    # commits just outside it are at the level, not the rest of a step).
    edges = (abs(left[-1] - level), abs(right[0] - level))
    if abs(lm - rm) >= smallest / 3 or max(edges) >= smallest / 2:
        return None
    p = p_value(smallest, sd, len(x))
    mean = points[0] if length == 1 else sum(points[1:], points[0]) / length
    return (p, level, mean) if p < max_pvalue else None


def excursions(x: np.ndarray, max_pvalue: float) -> tuple[list[tuple], np.ndarray]:
    """The excursions of x, each (index, p, level, mean value), and x with
    their points replaced by the level."""
    sd = noise(x)
    # the deviation whose p-value is max_pvalue, as a filter's bound
    limit = float(np.sqrt(2 * np.log(max(len(x), 2) / max_pvalue))) * LEVEL_NOISE
    found, clean, skip = [], x.copy(), -1
    for i in _candidates(x, sd, limit):
        if i <= skip:
            continue
        for length in range(MAX_LENGTH, 0, -1):
            hit = _test(x, int(i), length, sd, max_pvalue)
            if hit:
                found.append((int(i), *hit))
                clean[i:i + length] = hit[1]
                skip = i + length - 1
                break
    return found, clean


def span(x: np.ndarray, index: int, level: float, value: float) -> range:
    """The commits of the spike found at index (level and value as
    excursions gave them): index, and the next commit too when it is
    nearer the spike's value than the level (a two-commit excursion; the
    commit after a spike is back at the level, as _test requires)."""
    end = index + 1
    while (end < min(len(x), index + MAX_LENGTH)
           and abs(x[end] - value) < abs(x[end] - level)):
        end += 1
    return range(index, end)
