"""verdicts/spread.py: the baseline's median cv, from numpy where bounds
prove the note the same, is what the exact definition (cv() of each
sample, statistics.median) prints and decides."""

from __future__ import annotations

import random
import statistics

import numpy as np
import pytest

from pmubench.verdicts import spread


def _exact(samples):
    cvs = [c for c in map(spread.cv, samples) if c is not None]
    return statistics.median(cvs) if cvs else None


def _matrices(samples):
    """The samples as matrices, one per size."""
    sizes = {}
    for sample in samples:
        sizes.setdefault(len(sample), []).append(sample)
    return [np.array(group, dtype=float) for group in sizes.values()]


def _same_note(samples, threshold, matrices=None):
    fast = spread.median_cv(lambda: samples, threshold, matrices)
    exact = _exact(samples)
    if exact is None:
        return fast is None
    return f"{fast:.1f}" == f"{exact:.1f}" and (
        threshold is None or (fast > threshold) == (exact > threshold))


def _suite(seed: int, n: int = 5, rows: int = 400) -> list[list[float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(rows):
        center = rng.choice([1e-3, 1.0, 12.5, 4e6, 1e-120, 1e120])
        kind = rng.random()
        if kind < 0.1:
            out.append([0.0] * n)
        elif kind < 0.15:
            out.append([0.0, -0.0] * (n // 2) + [0.0] * (n % 2))
        elif kind < 0.2:
            out.append([rng.gauss(0.0, 1.0) for _ in range(n)])    # mean near 0, either sign
        elif kind < 0.25:
            out.append([center] * n)
        else:
            out.append([center * (1 + rng.gauss(0.0, rng.choice([1e-9, 0.01, 0.2])))
                        for _ in range(n)])
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_the_note_is_the_exact_ones(seed, n):
    samples = _suite(seed, n)
    for threshold in (None, 0.0, 1.0, 5.0, statistics.median(
            [c for c in map(spread.cv, samples) if c is not None])):
        assert _same_note(samples, threshold, _matrices(samples))
        assert _same_note(samples, threshold)


def test_bounds_that_straddle_the_threshold_or_a_digit_fall_back(monkeypatch):
    samples = _suite(7)
    exact = _exact(samples)
    calls = []
    real = spread._exact_median
    monkeypatch.setattr(spread, "_exact_median", lambda s: calls.append(1) or real(s))
    assert _same_note(samples, 1.0, _matrices(samples))
    assert calls == []
    monkeypatch.setattr(spread, "_BOUND", 1.0)      # bounds far apart: undecided
    assert spread.median_cv(lambda: samples, 1.0, _matrices(samples)) == exact
    assert calls == [1]


@pytest.mark.parametrize("samples", [
    [[1.0, 2.0], [1.0, 2.0, 3.0]],              # two sizes
    [[0.0, 0.0], [-1.0, -2.0]],                 # no positive mean: no cv
    [[1e300, 1e300, 2e300], [1.0, 2.0, 3.0]],   # beyond numpy's safe range
    [[5e-324, 1e-323, 0.0], [1.0, 1.5, 2.0]],   # subnormals
    [[3.0]],                                    # too few values for numpy
])
def test_other_samples_get_the_exact_median(samples):
    try:
        expected = _exact(samples)
    except (OverflowError, ZeroDivisionError) as error:
        with pytest.raises(type(error)):
            spread.median_cv(lambda: samples, 1.0, _matrices(samples))
        return
    assert _same_note(samples, 1.0, _matrices(samples))
