"""Statistics for comparing two samples of one metric: pure functions.

- `relative_change`: (contender - baseline) / |baseline| of the medians.
- `mann_whitney_p`: two-sided Mann-Whitney U p-value (scipy), the test
  Google Benchmark's compare.py uses; no assumption of normal noise.
- `min_two_sided_p`: the smallest p the exact test can give for sample
  sizes n and m, 2 / C(n+m, n). With 3 vs 3 it is 0.1, so no difference
  can reach p < 0.05; with 4 vs 4 it is 0.029 and with 5 vs 5 0.0079.
- `mann_whitney_p_many`, `ratio_interval_many`: the same for many rows of
  one sample size at once (numpy over rows; compare.py on a suite of
  180,000 runs). They give what the one-row functions give: scipy's
  choice of method (exact when a side has at most 8 values and there are
  no ties, else the normal approximation with tie and continuity
  correction) and its arithmetic.
- `confidence_label`: the one label of the confidence level (1 - alpha)
  that every output prints ("95%").
- `ratio_interval`: a distribution-free confidence interval for the change,
  Hodges-Lehmann style (Moses 1965; Bauer 1972): order statistics of all
  n*m pairwise differences log(contender_j) - log(baseline_i), cut where the
  exact Mann-Whitney null distribution puts alpha/2 in each tail. It is
  exact without resampling, so it needs no random seed. On the log scale a
  shift is a ratio, which suits multiplicative noise (times, counts); when a
  sample holds a value <= 0 the differences are taken on the linear scale
  and divided by |baseline median|. Small samples cannot reach every
  level: the interval is then the widest one, [min, max] of the
  differences, and its actual level (90% for 3 vs 3) is returned with it.
"""

from __future__ import annotations

import math
import statistics
import warnings
from typing import NamedTuple
from functools import lru_cache

import numpy as np


def _scipy_stats():
    """scipy.stats, imported on first use: its import is a quarter of a
    second of CPU, and a suite of 5 vs 5 repetitions takes the exact path
    that never needs it (python3 -X importtime)."""
    from scipy import stats as scipy_stats
    return scipy_stats


# Above this many pairs the null distribution of U is taken as normal.
_EXACT_PAIRS_LIMIT = 2500


def median(values: list[float]) -> float:
    """statistics.median's result, without its overhead (a large suite
    takes hundreds of thousands)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise statistics.StatisticsError("no median for empty data")
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def relative_change(baseline: float, contender: float) -> float:
    """(contender - baseline) / |baseline|; 0 when both are 0, +-inf when
    only the baseline is 0."""
    if baseline == 0:
        if contender == 0:
            return 0.0
        return math.copysign(math.inf, contender)
    return (contender - baseline) / abs(baseline)


def mann_whitney_p(baseline: list[float], contender: list[float]) -> float:
    """Two-sided Mann-Whitney U p-value; 1.0 when every value is equal (the
    test is undefined there and there is no evidence of a difference)."""
    if len(set(baseline) | set(contender)) == 1:
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _scipy_stats().mannwhitneyu(baseline, contender,
                                          alternative="two-sided")
    p = float(result.pvalue)
    return 1.0 if math.isnan(p) else p


@lru_cache(maxsize=64)
def _u_null_cdf_small_side(n: int, m: int) -> tuple[float, ...]:
    """P(U <= u) for u = 0..n*m, exact (no ties), for a small min(n, m) and
    any other size: the counts are the coefficients of the Gaussian
    binomial [n+m choose n](q) = prod_i (1 - q^(t+i)) / (1 - q^i), i = 1..s
    (s the smaller size, t the larger), O(s * n * m) time and n * m memory
    where the recursion of _u_null_cdf takes O(n * m * n * m)."""
    s, t = min(n, m), max(n, m)
    size = s * t + 1
    poly = np.zeros(size)
    poly[0] = 1.0
    for i in range(1, s + 1):
        shifted = np.zeros(size)
        shifted[t + i:] = poly[:size - (t + i)]
        poly = poly - shifted                    # times (1 - q^(t+i))
        for k in range(i, size):                 # divided by (1 - q^i)
            poly[k] += poly[k - i]
    return tuple(np.cumsum(poly) / poly.sum())


def _exact_sf_table(n: int, m: int) -> np.ndarray:
    """P(U >= u) for u = 0..n*m, exact, no ties (symmetric: P(U <= nm-u))."""
    if n * m <= _EXACT_PAIRS_LIMIT:
        cdf = np.asarray(_u_null_cdf(n, m))
    else:
        cdf = np.asarray(_u_null_cdf_small_side(n, m))
    return cdf[::-1].copy()


def mann_whitney_p_many(baseline: np.ndarray, contender: np.ndarray) -> np.ndarray:
    """mann_whitney_p of each row of baseline (rows x n) against the same
    row of contender (rows x m), as one numpy computation."""
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(contender, dtype=float)
    rows, n = b.shape
    m = c.shape[1]
    if rows == 0:
        return np.zeros(0)
    xy = np.concatenate([b, c], axis=1)
    total = n + m
    # Average ranks of each row (scipy's rankdata, without its per-row
    # Python loop): sort, number the runs of equal values, give each run
    # the mean of its positions.
    order = np.argsort(xy, axis=1, kind="mergesort")
    ordered = np.take_along_axis(xy, order, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)
    tied = ordered[:, 1:] == ordered[:, :-1]
    starts[:, 1:] = ~tied
    run_ids = np.cumsum(starts.ravel()) - 1
    positions = np.tile(np.arange(1.0, total + 1.0), rows)
    lengths = np.bincount(run_ids).astype(float)
    mean_rank = np.bincount(run_ids, weights=positions) / lengths
    ranks = np.empty(ordered.shape)
    np.put_along_axis(ranks, order, mean_rank[run_ids].reshape(ordered.shape), axis=1)
    u1 = ranks[:, :n].sum(axis=1) - n * (n + 1) / 2.0
    u = np.maximum(u1, n * m - u1)
    has_ties = tied.any(axis=1)
    p = np.empty(rows)
    exact = ~has_ties if (n <= 8 or m <= 8) else np.zeros(rows, dtype=bool)
    if exact.any():
        sf = _exact_sf_table(n, m)
        p[exact] = 2.0 * sf[np.rint(u[exact]).astype(int)]
    approx = ~exact
    if approx.any():
        # Tie term: sum over runs of equal values of t^3 - t, per row.
        run_row = np.repeat(np.arange(rows), starts.sum(axis=1))
        tie_term = np.bincount(run_row, weights=lengths ** 3 - lengths,
                               minlength=rows)[approx]
        s = np.sqrt(n * m / 12.0 * ((total + 1) - tie_term / (total * (total - 1))))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (u[approx] - n * m / 2.0 - 0.5) / s
        # norm.sf(z) is ndtr(-z), bit for bit: scipy.special is half the
        # import of scipy.stats.
        from scipy.special import ndtr
        p[approx] = 2.0 * ndtr(-z)
    p = np.clip(p, 0.0, 1.0)
    p[np.isnan(p)] = 1.0
    # Every value equal: no evidence of a difference (as mann_whitney_p).
    p[ordered[:, 0] == ordered[:, -1]] = 1.0
    return p


def _logs(values: np.ndarray) -> np.ndarray:
    """math.log of each value, in values' shape. Not np.log: NumPy picks an
    AVX-512 log on CPUs that have it, whose last bit differs from glibc's
    in some values, so the same runs gave intervals that differ in the 13th
    to 16th digit from one machine to another; glibc's log is the same
    everywhere."""
    flat = np.fromiter(map(math.log, values.ravel().tolist()), dtype=float,
                       count=values.size)
    return flat.reshape(values.shape)


def ratio_interval_many(baseline: np.ndarray, contender: np.ndarray,
                        alpha: float) -> list[Interval | None]:
    """ratio_interval of each row of baseline (rows x n) against the same
    row of contender (rows x m)."""
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(contender, dtype=float)
    rows, n = b.shape
    m = c.shape[1]
    if n < 2 or m < 2:
        return [None] * rows
    k, level = _rank_cut(n, m, alpha)
    out: list[Interval | None] = [None] * rows
    positive = (b > 0).all(axis=1) & (c > 0).all(axis=1)
    if positive.any():
        lb, lc = _logs(b[positive]), _logs(c[positive])
        diffs = (lc[:, None, :] - lb[:, :, None]).reshape(len(lb), n * m)
        diffs.sort(axis=1)
        low = list(map(math.expm1, diffs[:, k - 1].tolist()))
        high = list(map(math.expm1, diffs[:, n * m - k].tolist()))
        for i, lo, hi in zip(np.flatnonzero(positive).tolist(), low, high):
            out[i] = Interval(lo, hi, level)
    _linear_intervals(b, c, ~positive, k, level, out)
    return out


def _linear_intervals(b: np.ndarray, c: np.ndarray, rows: np.ndarray, k: int,
                      level: float, out: list[Interval | None]) -> None:
    """ratio_interval's linear scale for the rows selected (a value <= 0
    on a side), all at once: the differences over |baseline median|, None
    where that median is 0."""
    if not rows.any():
        return
    n, m = b.shape[1], c.shape[1]
    lb, lc = b[rows], c[rows]
    diffs = (lc[:, None, :] - lb[:, :, None]).reshape(len(lb), n * m)
    diffs.sort(axis=1)
    # median()'s value: the middle one, or the mean of the two middle ones.
    ordered = np.sort(lb, axis=1)
    scale = np.abs(ordered[:, n // 2] if n % 2 else
                   (ordered[:, n // 2 - 1] + ordered[:, n // 2]) / 2)
    for i, lo, hi, s in zip(np.flatnonzero(rows), diffs[:, k - 1], diffs[:, n * m - k], scale):
        if s != 0:
            out[i] = Interval(float(lo) / float(s), float(hi) / float(s), level)


def confidence_label(alpha: float) -> str:
    """The confidence level of a comparison at alpha, as every output
    (text, markdown, JSON, plots) labels it: '95%' for alpha 0.05."""
    return f"{100.0 * (1.0 - alpha):g}%"


@lru_cache(maxsize=1024)
def min_two_sided_p(n: int, m: int) -> float:
    """Smallest two-sided p of the exact Mann-Whitney test for sizes n, m."""
    return min(1.0, 2.0 / math.comb(n + m, n))


@lru_cache(maxsize=256)
def _u_null_cdf(n: int, m: int) -> tuple[float, ...]:
    """P(U <= u) for u = 0..n*m under the null, exact (no ties)."""
    # counts[j][u]: arrangements of i x's and j y's with U = u, built up in i
    # by the recursion N(i, j, u) = N(i-1, j, u-j) + N(i, j-1, u).
    prev = [np.zeros(n * m + 1) for _ in range(m + 1)]
    for j in range(m + 1):
        prev[j][0] = 1.0
    for i in range(1, n + 1):
        cur = [np.zeros(n * m + 1) for _ in range(m + 1)]
        cur[0][0] = 1.0
        for j in range(1, m + 1):
            shifted = np.zeros(n * m + 1)
            shifted[j:] = prev[j][:n * m + 1 - j]
            cur[j] = shifted + cur[j - 1]
        prev = cur
    counts = prev[m]
    return tuple(np.cumsum(counts) / counts.sum())


def _rank_cut(n: int, m: int, alpha: float) -> tuple[int, float]:
    """The number k of pairwise differences to drop from each end for a
    (1 - alpha) interval, and the interval's actual level. k is at least 1
    (the interval is never wider than [min, max])."""
    pairs = n * m
    if pairs <= _EXACT_PAIRS_LIMIT:
        cdf = _u_null_cdf(n, m)
        # The interval [d_(k), d_(nm+1-k)] (1-based) has level
        # 1 - 2 P(U <= k - 1); take the largest k that keeps it >= 1-alpha.
        k = 1
        while k < pairs // 2 and 2 * cdf[k] <= alpha:
            k += 1
        return k, 1.0 - 2.0 * cdf[k - 1]
    mean = pairs / 2.0
    sd = math.sqrt(pairs * (n + m + 1) / 12.0)
    z = float(_scipy_stats().norm.ppf(1.0 - alpha / 2.0))
    k = max(1, int(math.floor(mean - z * sd)))
    level = 1.0 - 2.0 * float(_scipy_stats().norm.cdf((k - 0.5 - mean) / sd))
    return k, level


class Interval(NamedTuple):
    """Immutable; a named tuple, not a dataclass: a large suite makes
    hundreds of thousands (a frozen dataclass's __init__ is several times
    slower to call)."""
    low: float     # relative change, e.g. -0.02 for -2%
    high: float
    level: float   # actual confidence level, e.g. 0.95 or 0.90


def ratio_interval(baseline: list[float], contender: list[float],
                   alpha: float) -> Interval | None:
    """Confidence interval for the relative change of contender against
    baseline (see the module comment); None with fewer than 2 values on a
    side or a zero baseline median on the linear scale."""
    n, m = len(baseline), len(contender)
    if n < 2 or m < 2:
        return None
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(contender, dtype=float)
    if (b > 0).all() and (c > 0).all():
        diffs = np.sort((_logs(c)[None, :] - _logs(b)[:, None]).ravel())
        to_change = lambda d: math.expm1(d)  # noqa: E731
    else:
        scale = abs(median(baseline))
        if scale == 0:
            return None
        diffs = np.sort((c[None, :] - b[:, None]).ravel())
        to_change = lambda d: d / scale  # noqa: E731
    k, level = _rank_cut(n, m, alpha)
    return Interval(to_change(float(diffs[k - 1])),
                    to_change(float(diffs[len(diffs) - k])), level)


def completely_separated(baseline: list[float], contender: list[float],
                         worse_is_higher: bool) -> bool:
    """True when every contender value is worse than every baseline value
    (or every one better, with worse_is_higher False): the strongest
    evidence a small sample can give."""
    if worse_is_higher:
        return min(contender) > max(baseline)
    return max(contender) < min(baseline)


def geomean_ratio(pairs: list[tuple[float, float]]) -> tuple[float, int]:
    """Geometric mean of contender/baseline over (baseline, contender) pairs
    where both are > 0, and how many pairs that was; (nan, 0) for none."""
    logs = [math.log(c / b) for b, c in pairs if b > 0 and c > 0]
    if not logs:
        return math.nan, 0
    return math.exp(sum(logs) / len(logs)), len(logs)
