"""How much a metric's baseline repetitions spread: the median, over its
samples, of each sample's coefficient of variation (sample standard
deviation over mean, in percent; a sample whose mean is not positive has
none). comparison's noise note prints it as "{:.1f}" and compares it with
the metric's threshold.

    typical = median_cv(lambda: samples, threshold_pct)   # None: no sample has a cv

cv() is the definition, exactly rounded sums (math.fsum). A large suite
has hundreds of thousands of samples, judged as matrices of one sample
size (comparison's blocks); given those, median_cv first takes every cv of
a matrix at once with numpy, whose sums are not exactly rounded, with a
bound on how far each can be from cv()'s: the median of
the lower bounds and that of the upper bounds hold cv()'s median between
them (an order statistic never decreases when each value does not). When
both print the same and fall on the same side of the threshold, the note
is the one cv() gives; otherwise, and without matrices, every cv is
cv()'s (tests/python/test_compare_spread.py).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable

import numpy as np

# A sample's mean is taken as positive or negative from numpy only when it
# is this far from zero, relative to its largest |value| (numpy's error is
# below n * 2**-52 of it); others get cv().
_SIGN_MARGIN = 1e-6
# Values whose squares and their sums neither overflow nor lose digits to
# subnormals; a sample beyond them gets cv().
_SMALLEST, _LARGEST = 1e-100, 1e100
# The bound on |numpy's cv - cv()| of a sample of n values, as a multiple of
# n * (1 + cv) * max|value| / mean: both sit within a few n * 2**-52 of
# that of the true cv; this is ten thousand times that.
_BOUND = 1e-9


def cv(values: list[float]) -> float | None:
    """The coefficient of variation of values in percent, None when their
    mean is not positive."""
    mean = math.fsum(values) / len(values)
    if mean <= 0:
        return None
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(var) / mean * 100.0


def _exact_median(samples: list[list[float]]) -> float | None:
    cvs = [c for c in map(cv, samples) if c is not None]
    return statistics.median(cvs) if cvs else None


def _bounds(matrices: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """A lower and an upper bound on the cv() of each row of the matrices
    that has one (see the module comment), or None for a matrix of fewer
    than 2 or more than 1,000 columns; cv() itself where numpy's sign of
    the mean or its range could mislead. A row of zeros has none."""
    lows, highs = [], []
    for values in matrices:
        n = values.shape[1]
        if not 2 <= n <= 1000:
            return None
        largest = np.abs(values).max(axis=1)
        mean = values.sum(axis=1) / n
        fast = (mean > _SIGN_MARGIN * largest) & (largest >= _SMALLEST) & (largest <= _LARGEST)
        unsure = ~fast & (mean >= -_SIGN_MARGIN * largest) & (largest > 0)
        exact = [c for c in map(cv, values[unsure].tolist()) if c is not None]
        held, centers = values[fast], mean[fast]
        deviations = held - centers[:, None]
        cvs = np.sqrt((deviations * deviations).sum(axis=1) / (n - 1)) / centers * 100.0
        error = _BOUND * n * (1.0 + cvs) * largest[fast] / centers
        # A cv is never negative: the lower bound of an all-equal row is 0.
        lows += [np.maximum(cvs - error, 0.0), exact]
        highs += [cvs + error, exact]
    return np.concatenate(lows), np.concatenate(highs)


def _median(values: np.ndarray) -> float:
    """The median of values as statistics.median takes it (the mean of the
    two middle ones of an even count), sorted by numpy: a bound of the
    median is all it needs to be, and the median of values each no larger
    (no smaller) is no larger (no smaller)."""
    ordered = np.sort(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[mid])
    return (float(ordered[mid - 1]) + float(ordered[mid])) / 2


def median_cv(samples: Callable[[], list[list[float]]], threshold: float | None,
              matrices: list[np.ndarray] | None = None) -> float | None:
    """statistics.median of the cv() of each sample that has one, or a
    value that prints as it ("{:.1f}") and is on the same side of
    threshold; None when no sample has a cv. samples() gives the samples,
    asked for only when the exact median is taken; matrices, when given,
    hold their values (float64, a sample a row, in any order): the bounds
    are taken from them."""
    bounds = _bounds(matrices) if matrices else None
    if bounds is not None:
        if not len(bounds[0]):
            return None
        low, high = _median(bounds[0]), _median(bounds[1])
        if f"{low:.1f}" == f"{high:.1f}" and (
                threshold is None or (low > threshold) == (high > threshold)):
            return low
    return _exact_median(samples())
