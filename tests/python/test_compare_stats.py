"""Tests for scripts/pmubench/verdicts/stats.py."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pmubench.verdicts import stats


def test_relative_change():
    assert stats.relative_change(100.0, 105.0) == pytest.approx(0.05)
    assert stats.relative_change(100.0, 90.0) == pytest.approx(-0.10)
    assert stats.relative_change(-2.0, -1.0) == pytest.approx(0.5)
    assert stats.relative_change(0.0, 0.0) == 0.0
    assert stats.relative_change(0.0, 3.0) == math.inf


def test_min_two_sided_p_is_what_the_exact_test_reaches():
    assert stats.min_two_sided_p(3, 3) == pytest.approx(0.1)
    assert stats.min_two_sided_p(4, 4) == pytest.approx(2 / 70)
    assert stats.min_two_sided_p(5, 5) == pytest.approx(2 / 252)
    assert stats.min_two_sided_p(1, 1) == 1.0
    # And scipy's exact test agrees on complete separation.
    p = scipy_stats.mannwhitneyu([1, 2, 3], [4, 5, 6], method="exact").pvalue
    assert p == pytest.approx(stats.min_two_sided_p(3, 3))


def test_mann_whitney_p():
    assert stats.mann_whitney_p([5.0] * 5, [5.0] * 5) == 1.0
    assert stats.mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) < 0.01
    assert stats.mann_whitney_p([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]) > 0.5
    # Deterministic counters: tied within each side, apart across them.
    assert stats.mann_whitney_p([100.0] * 5, [105.0] * 5) < 0.05


def _brute_force_u_cdf(n, m):
    """P(U <= u) by enumerating which ranks the first sample takes."""
    counts = [0] * (n * m + 1)
    for ranks in itertools.combinations(range(n + m), n):
        # U of the first sample: pairs (x, y) with y < x.
        u = sum(r - i for i, r in enumerate(ranks))
        counts[u] += 1
    total = sum(counts)
    return list(itertools.accumulate(c / total for c in counts))


@pytest.mark.parametrize("n, m", [(1, 1), (2, 3), (3, 3), (4, 6), (5, 5)])
def test_exact_null_distribution_matches_enumeration(n, m):
    assert stats._u_null_cdf(n, m) == pytest.approx(_brute_force_u_cdf(n, m))


def test_interval_5_vs_5_drops_two_pairwise_changes_each_end():
    base = [100.0, 101.0, 102.0, 103.0, 104.0]
    cont = [110.0, 111.0, 112.0, 113.0, 114.0]
    iv = stats.ratio_interval(base, cont, alpha=0.05)
    diffs = sorted(math.log(c) - math.log(b) for b in base for c in cont)
    # P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3.
    assert iv.level == pytest.approx(1 - 2 * 4 / 252)
    assert iv.low == pytest.approx(math.expm1(diffs[2]))
    assert iv.high == pytest.approx(math.expm1(diffs[-3]))
    assert iv.low < 0.10 < iv.high


def test_interval_3_vs_3_is_min_to_max_at_90_percent():
    iv = stats.ratio_interval([10.0, 11.0, 12.0], [12.0, 13.0, 15.0], alpha=0.05)
    assert iv.level == pytest.approx(0.9)
    assert iv.low == pytest.approx(12 / 12 - 1)
    assert iv.high == pytest.approx(15 / 10 - 1)


def test_interval_falls_back_to_linear_with_zeros_and_needs_two_values():
    iv = stats.ratio_interval([0.0, 2.0, 2.0, 2.0, 4.0], [2.0, 4.0, 4.0, 4.0, 6.0], 0.05)
    assert iv is not None and iv.low <= 1.0 <= iv.high   # shift 2 over median 2
    assert stats.ratio_interval([0.0] * 5, [1.0] * 5, 0.05) is None
    assert stats.ratio_interval([1.0], [1.0, 2.0], 0.05) is None


def test_interval_covers_the_true_ratio_about_as_often_as_it_claims():
    rng = random.Random(42)
    true_ratio = 1.07
    trials, covered, levels = 300, 0, set()
    for _ in range(trials):
        base = [rng.lognormvariate(0, 0.05) for _ in range(6)]
        cont = [true_ratio * rng.lognormvariate(0, 0.05) for _ in range(6)]
        iv = stats.ratio_interval(base, cont, 0.05)
        levels.add(round(iv.level, 6))
        covered += iv.low <= true_ratio - 1 <= iv.high
    (level,) = levels
    assert level >= 0.95
    # Binomial(300, >= 0.95): below 0.91 would be a 3-sigma miss.
    assert covered / trials >= 0.91


def test_large_samples_use_the_normal_approximation_close_to_exact():
    k_exact, level_exact = stats._rank_cut(40, 40, 0.05)
    k_norm, level_norm = stats._rank_cut(60, 60, 0.05)
    assert 0.94 < level_exact < 0.96 and 0.94 < level_norm < 0.96
    assert k_exact < k_norm


def test_separation_and_geomean():
    assert stats.completely_separated([1, 2, 3], [4, 5, 6], worse_is_higher=True)
    assert not stats.completely_separated([1, 2, 5], [4, 5, 6], worse_is_higher=True)
    assert stats.completely_separated([4, 5, 6], [1, 2, 3], worse_is_higher=False)
    ratio, count = stats.geomean_ratio([(1.0, 2.0), (4.0, 2.0), (0.0, 1.0)])
    assert count == 2 and ratio == pytest.approx(1.0)
    assert math.isnan(stats.geomean_ratio([(0.0, 0.0)])[0])


@pytest.mark.parametrize("n, m", [(2, 2), (3, 3), (4, 4), (5, 5), (3, 7), (8, 8),
                                  (8, 20), (9, 9), (12, 15), (2, 9), (10, 4), (3, 400)])
def test_many_rows_at_once_give_what_one_row_gives(n, m):
    """mann_whitney_p_many and ratio_interval_many (compare.py on a large
    suite) agree with scipy's test and ratio_interval row by row: no ties
    (exact), ties (normal approximation with tie correction), all equal,
    values <= 0 (the interval on the linear scale)."""
    rng = np.random.default_rng(n * 100 + m)
    rows = 6 if m > 100 else 25
    samples = [
        (rng.normal(100, 3, (rows, n)), rng.normal(101, 3, (rows, m))),
        (rng.integers(0, 4, (rows, n)).astype(float), rng.integers(0, 5, (rows, m)).astype(float)),
        (np.full((rows, n), 7.0), np.full((rows, m), 7.0)),
        (np.round(rng.normal(100, 3, (rows, n))), rng.normal(101, 3, (rows, m))),
        (rng.normal(0, 3, (rows, n)), rng.normal(0.5, 3, (rows, m))),
    ]
    for b, c in samples:
        ps = stats.mann_whitney_p_many(b, c)
        intervals = stats.ratio_interval_many(b, c, 0.05)
        for i in range(rows):
            assert ps[i] == pytest.approx(stats.mann_whitney_p(list(b[i]), list(c[i])),
                                          abs=1e-12)
            one = stats.ratio_interval(list(b[i]), list(c[i]), 0.05)
            if one is None:
                assert intervals[i] is None
            else:
                assert intervals[i].level == pytest.approx(one.level, abs=1e-12)
                assert intervals[i].low == pytest.approx(one.low, abs=1e-12)
                assert intervals[i].high == pytest.approx(one.high, abs=1e-12)


def test_the_exact_null_distribution_of_a_small_side_against_a_large_one():
    # The Gaussian-binomial counts equal the recursion's where both run,
    # and take a fraction of a second for 8 against 5,000.
    for n, m in ((3, 5), (8, 8), (2, 40), (8, 320)):
        assert np.allclose(stats._u_null_cdf_small_side(n, m), stats._u_null_cdf(n, m),
                           rtol=0, atol=1e-15)
    cdf = stats._u_null_cdf_small_side(8, 5000)
    assert len(cdf) == 40001 and cdf[-1] == pytest.approx(1.0)


@pytest.mark.parametrize("n, m", [(3, 3), (4, 5), (5, 5), (6, 4)])
def test_linear_scale_intervals_of_many_rows_are_the_one_row_ones_exactly(n, m):
    """Rows with a value <= 0 (zero page faults, say) are done at once on
    the linear scale: the same floats as ratio_interval, None where the
    baseline median is 0."""
    rng = np.random.default_rng(n * 10 + m)
    b = rng.integers(-1, 4, (40, n)).astype(float)
    c = rng.integers(-1, 5, (40, m)).astype(float)
    intervals = stats.ratio_interval_many(b, c, 0.05)
    assert any(i is None for i in intervals) and any(i is not None for i in intervals)
    for i in range(40):
        assert intervals[i] == stats.ratio_interval(list(b[i]), list(c[i]), 0.05)
