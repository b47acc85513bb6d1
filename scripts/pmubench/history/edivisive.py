"""Split/merge E-divisive change-point detection with a Student t-test.

The method of Fleming et al., "Hunter: Using Change Point Detection to Hunt
for Performance Regressions" (ICPE 2023), as Apache Otava runs it, written
here from the paper and Matteson & James, "A Nonparametric Approach for
Multiple Change Point Analysis of Multivariate Data" (2014):

- split: slide a window of `window` points over the series by half a
  window; inside each window, E-divisive bisection (the split that
  maximises the energy statistic Q-hat) finds candidates, each kept while a
  two-sample t-test of its two sides has p <= a relaxed p-value (10x the
  final one below 0.05, 2x below 0.5). Their union is the weak points.
- merge: re-test every weak point against its neighbours' segments; drop
  the weakest (largest p-value above max_pvalue, else smallest relative
  change when not above min_magnitude) and re-test its neighbours, until
  every point stands.

Pure numpy/scipy over a 1-D float array; indexes are 0-based and a point
at i means x[i] is the first value of the new level.

Two modes. faithful=True is the reference method to the letter: the same
answers as Otava on its own test series, including its re-test after a
drop (the point after the dropped one and the next, not the one before).
The default differs in these ways, measured by scripts/dev/check_detector.py
and scripts/dev/detector_power.py: a drop re-tests both neighbours, and each t-test's p-value is corrected for
the choice of the split (Sidak over the segment's b - a - 1 possible cuts:
the candidate is the best of them, so its raw p-value is too small). On
pure noise that removes the false points the reference finds (about one
per 700 points at p 0.001) at the same power on steps of 2 standard
deviations and more; steps of 1 deviation are found less often.

The default also takes excursions out before the split and merge
(spikes.py): a run of one or two commits far from the level on both of its
sides, which returns, is reported as a spike (kind "spike") and replaced by
the level for the step search, so an outlier next to a short step no
longer inflates the step's re-test variance and drops it; and the split
tests a candidate's two sides as E-divisive chose them (x[a:tau] against
x[tau:kappa]), so a short step is not diluted by the window's rest.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import stdtr

from pmubench.history import spikes


@dataclass
class ChangePoint:
    index: int
    p_value: float
    mean_before: float
    mean_after: float
    kind: str = "step"

    @property
    def magnitude(self) -> float:
        """The larger of the forward and backward relative changes."""
        forward = self.mean_after / self.mean_before - 1 if self.mean_before else 0.0
        backward = self.mean_before / self.mean_after - 1 if self.mean_after else 0.0
        return max(abs(forward), abs(backward))


class Prefix:
    """Sums and sums of squares of x's prefixes: any segment's mean and
    (ddof=0) deviation in O(1). The sums are kept as Python floats: the
    t-tests read them one at a time, and numpy's scalars cost more than the
    arithmetic (the same IEEE doubles, so the same results)."""

    def __init__(self, x: np.ndarray) -> None:
        self.s1 = [0.0, *np.cumsum(x).tolist()]
        self.s2 = [0.0, *np.cumsum(x * x).tolist()]

    @classmethod
    def of(cls, s1: np.ndarray, s2: np.ndarray) -> "Prefix":
        """A Prefix from sums already taken (Windows takes many at once)."""
        prefix = cls.__new__(cls)
        prefix.s1, prefix.s2 = s1.tolist(), s2.tolist()
        return prefix

    def stats(self, a: int, b: int) -> tuple[float, float, int]:
        n = b - a
        mean = (self.s1[b] - self.s1[a]) / n
        var = (self.s2[b] - self.s2[a]) / n - mean * mean
        return mean, (var if var > 0 and n >= 2 else 0.0), n


def t_test(prefix: Prefix, a: int, cut: int, b: int, corrected: bool = False) -> ChangePoint:
    """Student's two-sample t-test (pooled variance, as scipy's
    ttest_ind_from_stats with equal_var) of x[a:cut] against x[cut:b], the
    deviations taken with ddof=0 as the method does; corrected: the
    p-value of the best of b - a - 1 cuts (Sidak)."""
    m1, v1, n1 = prefix.stats(a, cut)
    m2, v2, n2 = prefix.stats(cut, b)
    if n1 + n2 <= 2:
        return ChangePoint(cut, 1.0, m1, m2)
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
    denom = math.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    diff = m1 - m2
    if denom == 0 or denom < 1e-12 * max(abs(m1), abs(m2)):
        # Two constant sides: equal means prove nothing, different ones differ.
        p = 1.0 if diff == 0 else 0.0
    else:
        p = float(2.0 * stdtr(df, -abs(diff) / denom))
    if corrected and 0 < p < 1:
        p = float(-np.expm1((b - a - 1) * np.log1p(-p)))
    return ChangePoint(cut, p, m1, m2)


def distance_prefix(z: np.ndarray) -> np.ndarray:
    """P[i, j] = sum of |z_r - z_c| over r < i, c < j: any block's sum of
    distances in O(1). z may be a stack of series (..., n): one P each."""
    n = z.shape[-1]
    p = np.zeros(z.shape[:-1] + (n + 1, n + 1))
    p[..., 1:, 1:] = np.abs(z[..., :, None] - z[..., None, :]).cumsum(-2).cumsum(-1)
    return p


def energy(p: np.ndarray, a: int, b: int) -> np.ndarray:
    """Q[tau - a - 1, kappa - a - 2] of Q(z[a:tau], z[tau:kappa]) for
    a < tau < b, a + 1 < kappa <= b (p: distance_prefix(z), or a stack of
    them: then one Q a series); 0 where kappa <= tau.
    Q = 2/(n+m) * sum|X-Y| - 2m/((n+m)(n-1)) * sum_{i<k}|X_i-X_k|
        - 2n/((n+m)(m-1)) * sum_{j<k}|Y_j-Y_k|, n = |X|, m = |Y|, a
    within-sum term 0 when its side has one point. Each element is computed
    by the same operations whether p is one series or a stack, so a stack's
    Q equals each series' own to the last bit."""
    # slices and the diagonal's views: the elements p[tau, tau], p[tau, kappa],
    # p[kappa, kappa], p[a, tau], p[a, kappa] without fancy indexing's copies
    diagonal = np.diagonal(p, axis1=-2, axis2=-1)
    p_tt, p_kk = diagonal[..., a + 1:b, None], diagonal[..., None, a + 2:b + 1]
    p_tk = p[..., a + 1:b, a + 2:b + 1]
    p_at, p_ak = p[..., a, a + 1:b, None], p[..., a, None, a + 2:b + 1]
    between = p_tk - p_ak - p_tt + p_at
    within_x = (p_tt - 2 * p_at + p[..., a, a, None, None]) / 2
    within_y = (p_kk - 2 * p_tk + p_tt) / 2
    scale, weight_x, weight_y, valid = _weights(b - a)
    q = scale * between - weight_x * within_x - weight_y * within_y
    return np.where(valid, q, 0.0)


@functools.lru_cache(maxsize=64)
def _weights(m: int) -> tuple[np.ndarray, ...]:
    """energy's factors for a segment of m points, which depend on m only:
    2/(n+m), the two within-sum weights, and where kappa > tau."""
    nx = np.arange(1, m)[:, None].astype(float)
    ny = (np.arange(2, m + 1)[None, :] - np.arange(1, m)[:, None]).astype(float)
    total = nx + ny
    # the 1/0 of a one-point side is masked by np.where
    with np.errstate(divide="ignore", invalid="ignore"):
        weight_x = np.where(nx > 1, 2 * ny / (total * (nx - 1)), 0.0)
        weight_y = np.where(ny > 1, 2 * nx / (total * (ny - 1)), 0.0)
    return 2 / total, weight_x, weight_y, ny >= 1


def best_split(p: np.ndarray, a: int, b: int) -> tuple[int, float, int]:
    """E-divisive's candidate in z[a:b] (p: distance_prefix(z)): the
    (tau, kappa) maximising Q(z[a:tau], z[tau:kappa]) (energy), a < tau <
    kappa <= b; returns (tau, Q, kappa). Ties go to the smallest tau, then
    the smallest kappa; Q is 0 where no split exists."""
    q = energy(p, a, b)
    i, j = divmod(int(np.argmax(q)), q.shape[1])
    return a + i + 1, float(q[i, j]), a + j + 2


class Windows:
    """The split pass's full windows of x, computed a chunk at a time in
    one numpy pass (each window alone cost about 20 numpy calls on a 30 x 30
    array, most of a detection's time): per window its Prefix, distance
    prefix and first candidate, bit for bit what window_points computes for
    the window alone. A chunk holds the windows at start, start + step, ...
    (where the split pass goes when it finds nothing)."""

    CHUNK = 16

    def __init__(self, x: np.ndarray, window: int, step: int) -> None:
        self.x, self.window, self.step = x, window, step
        self.cache: dict[int, tuple] = {}

    def get(self, start: int) -> tuple | None:
        """(prefix, distances, (tau, Q, kappa)) of x[start:start + window],
        or None when the window is short (the series' end)."""
        if start + self.window > len(self.x):
            return None
        if start not in self.cache:
            self.cache = self._chunk(start)
        return self.cache[start]

    def _chunk(self, start: int) -> dict[int, tuple]:
        last = min(start + (self.CHUNK - 1) * self.step, len(self.x) - self.window)
        starts = np.arange(start, last + 1, self.step)
        z = np.lib.stride_tricks.sliding_window_view(self.x, self.window)[starts]
        zeros = np.zeros((len(starts), 1))
        s1 = np.concatenate((zeros, np.cumsum(z, axis=1)), axis=1)
        s2 = np.concatenate((zeros, np.cumsum(z * z, axis=1)), axis=1)
        distances = distance_prefix(z)
        q = energy(distances, 0, self.window).reshape(len(starts), -1)
        best = q.argmax(axis=1)
        width = self.window - 1
        return {int(s): (Prefix.of(s1[k], s2[k]), distances[k],
                         (int(best[k] // width) + 1, float(q[k, best[k]]),
                          int(best[k] % width) + 2))
                for k, s in enumerate(starts)}


def _bounds(points: list[int], n: int) -> list[tuple[int, int]]:
    edges = [0, *points, n]
    return [(a, b) for a, b in zip(edges, edges[1:]) if b > a]


def window_points(x: np.ndarray, start: int, end: int, max_pvalue: float,
                  corrected: bool = False, windows: Windows | None = None) -> list[int]:
    """E-divisive bisection of x[start:end]: the candidate of the segment
    with the largest Q, kept while its t-test against its segment's two
    sides passes max_pvalue. Indexes into x, sorted. windows: the split
    pass's precomputed windows, when x[start:end] is one of them."""
    z = x[start:end]
    cached = windows.get(start) if windows and end - start == windows.window else None
    best: dict[tuple[int, int], tuple[int, float, int]] = {}
    if cached:
        prefix, distances, best[(0, len(z))] = cached
    else:
        prefix, distances = Prefix(z), distance_prefix(z)
    return [start + i for i in _bisect(prefix, distances, len(z), [], best,
                                       max_pvalue, corrected)]


def _bisect(prefix: Prefix, distances: np.ndarray, n: int, found: list[int], best: dict,
            max_pvalue: float, corrected: bool) -> list[int]:
    """window_points' loop: the cuts of z[0:n], sorted."""
    while True:
        candidates = []
        for a, b in _bounds(found, n):
            if b - a > 1:
                if (a, b) not in best:
                    best[(a, b)] = best_split(distances, a, b)
                candidates.append((best[(a, b)][1], a, b))
        if not candidates:
            break
        q, a, b = max(candidates, key=lambda c: c[0])
        cut, _, kappa = best[(a, b)]
        # The default tests the two sides E-divisive chose, x[a:cut] against
        # x[cut:kappa]: a short step followed by a return is then tested
        # against its own level, not diluted by the rest of the window.
        if t_test(prefix, a, cut, kappa if corrected else b, corrected).p_value > max_pvalue:
            break
        found = sorted(found + [cut])
    return found


def relaxed(max_pvalue: float) -> float:
    """The split pass's p-value: weak points are kept at 10x the final
    p-value below 0.05, 2x below 0.5."""
    if max_pvalue < 0.05:
        return max_pvalue * 10
    return max_pvalue * 2 if max_pvalue < 0.5 else max_pvalue


def split(x: np.ndarray, window: int, max_pvalue: float, start: int = 0,
          weak: list[int] | None = None, corrected: bool = False) -> list[int]:
    """The weak points: the union of window_points over windows from
    `start` on, each starting half a window after the last (or at the last
    point it found, when that is further). `weak` are points kept from an
    earlier pass over the series' head (incremental detection)."""
    if window < 2:
        raise ValueError("window must be at least 2")
    points = set(weak or ())
    step = window // 2
    n = len(x)
    windows = Windows(x, window, max(step, 1))
    while start < n:
        end = min(start + window, n)
        found = window_points(x, start, end, max_pvalue, corrected, windows)
        points.update(found)
        start = max(found[-1] if found else 0, start + step)
    return sorted(points)


def _test_at(prefix: Prefix, points: list[int], k: int, n: int,
             corrected: bool) -> ChangePoint:
    a = points[k - 1] if k > 0 else 0
    b = points[k + 1] if k + 1 < len(points) else n
    return t_test(prefix, a, points[k], b, corrected)


def merge(x: np.ndarray, weak: list[int], max_pvalue: float,
          min_magnitude: float, faithful: bool = False) -> list[ChangePoint]:
    """Drops weak points until each has p < max_pvalue and a relative
    change above min_magnitude; each drop re-tests the two neighbours,
    whose segments it joined (faithful: the reference's choice, below)."""
    prefix = Prefix(x)
    n = len(x)
    points = list(weak)
    corrected = not faithful
    tested = [_test_at(prefix, points, k, n, corrected) for k in range(len(points))]
    while tested:
        k = max(range(len(tested)), key=lambda i: tested[i].p_value)
        if tested[k].p_value < max_pvalue:
            k = min(range(len(tested)), key=lambda i: tested[i].magnitude)
            if tested[k].magnitude > min_magnitude:
                break
        del points[k], tested[k]
        # The reference re-tests the points now at k and k + 1; the one
        # before the drop, at k - 1, keeps its stale p-value there.
        for j in ((k, k + 1) if faithful else (k - 1, k)):
            if 0 <= j < len(points):
                tested[j] = _test_at(prefix, points, j, n, corrected)
    return tested


def detect(x, window: int = 30, max_pvalue: float = 0.001,
           min_magnitude: float = 0.0, faithful: bool = False
           ) -> tuple[list[ChangePoint], list[int]]:
    """Change points of series x (floats; NaN for a missing value is
    filled from its neighbours) and the weak points (kept for incremental
    detection)."""
    x = fill_missing(np.asarray(x, dtype=np.float64))
    if faithful:
        weak = split(x, window, relaxed(max_pvalue))
        return merge(x, weak, max_pvalue, min_magnitude, True), weak
    found, clean = spikes.excursions(x, max_pvalue)
    weak = split(clean, window, relaxed(max_pvalue), corrected=True)
    return _with_spikes(merge(clean, weak, max_pvalue, min_magnitude), found), weak


def _with_spikes(steps: list[ChangePoint], found: list[tuple]) -> list[ChangePoint]:
    """steps and the spikes (index, p, level, value), by index."""
    out = steps + [ChangePoint(i, p, level, value, "spike") for i, p, level, value in found]
    return sorted(out, key=lambda c: c.index)


def detect_appended(x, old_weak: list[int], old_length: int, window: int = 30,
                    max_pvalue: float = 0.001, min_magnitude: float = 0.0,
                    faithful: bool = False) -> tuple[list[ChangePoint], list[int]]:
    """detect() after points were appended to a series of old_length whose
    weak points were old_weak: the split pass runs again only over the
    tail (from four windows plus the new points before the end, or the
    last weak point before that), the merge over everything."""
    x = fill_missing(np.asarray(x, dtype=np.float64))
    found: list[tuple] = []
    if not faithful:
        found, x = spikes.excursions(x, max_pvalue)
    new = len(x) - old_length
    limit = len(x) - (new / window + 4) * window
    keep = [p for p in old_weak if p < limit]
    start = keep[-1] if keep else 0
    step = max(window // 2, 1)
    start = max([start] + [s for s in range(0, len(x), step) if s < limit])
    weak = split(x, window, relaxed(max_pvalue), start=start,
                 weak=[p for p in old_weak if p < start], corrected=not faithful)
    return _with_spikes(merge(x, weak, max_pvalue, min_magnitude, faithful), found), weak


def fill_missing(x: np.ndarray) -> np.ndarray:
    """Each NaN replaced by the value before it (leading ones by the first
    value after them)."""
    if not np.isnan(x).any():
        return x
    x = x.copy()
    good = np.flatnonzero(~np.isnan(x))
    if good.size == 0:
        return np.zeros_like(x)
    index = np.maximum.accumulate(np.where(~np.isnan(x), np.arange(len(x)), -1))
    index[index < 0] = good[0]
    return x[index]
