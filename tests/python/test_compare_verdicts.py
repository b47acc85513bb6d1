"""Tests for scripts/pmubench/verdicts/comparison.py: the verdict rules."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np

from pmubench.runs import benchjson
from pmubench.verdicts import comparison as cmp
from pmubench.runs import matching
from pmubench.verdicts import thresholds


def _side(values, source=matching.REPETITIONS):
    return cmp.Side(statistics.median(values), len(values), source, list(values))


def _judge(base, cont, metric="instructions", overrides=(), alpha=0.05,
           source=matching.REPETITIONS):
    t = thresholds.resolve(metric, list(overrides))
    j = cmp.judge(_side(base, source), _side(cont, source), t,
                  benchjson.is_higher_better(metric), alpha)
    return j.verdict, j.mode


def test_u_test_regression_needs_size_and_significance():
    base = [1000.0, 1000.2, 999.8, 1000.1, 999.9]
    assert _judge(base, [v * 1.05 for v in base]) == (cmp.REGRESSION, cmp.U_TEST)
    assert _judge(base, [v * 0.95 for v in base]) == (cmp.IMPROVEMENT, cmp.U_TEST)
    # Significant but within the 1% threshold: no change.
    assert _judge(base, [v * 1.005 for v in base])[0] == cmp.NO_CHANGE
    # Beyond the threshold in the median but not significant.
    noisy = [100.0, 80.0, 120.0, 95.0, 130.0]
    assert _judge(noisy, [110.0, 85.0, 140.0, 90.0, 125.0], "real_time")[0] == cmp.NO_CHANGE


def test_direction_follows_the_metric():
    base = [2.0, 2.01, 1.99, 2.0, 2.02]
    lower = [v * 0.8 for v in base]
    assert _judge(base, lower, "IPC")[0] == cmp.REGRESSION
    assert _judge(base, lower, "items_per_second")[0] == cmp.REGRESSION
    assert _judge(base, lower, "real_time")[0] == cmp.IMPROVEMENT


def test_few_repetitions_need_complete_separation():
    assert _judge([100.0, 101.0, 102.0], [110.0, 111.0, 112.0]) == (cmp.REGRESSION, cmp.FEW_REPS)
    # Overlap: one contender value below a baseline value.
    assert _judge([100.0, 101.0, 112.0], [100.5, 111.0, 112.0]) == (cmp.NO_CHANGE, cmp.FEW_REPS)


def test_threshold_only_without_repetitions():
    verdict, mode = _judge([100.0], [101.5], source=matching.SINGLE_RUN)
    assert (verdict, mode) == (cmp.REGRESSION, cmp.THRESHOLD_ONLY)
    verdict, _ = _judge([100.0], [100.5], source=matching.MEDIAN_AGGREGATE)
    assert verdict == cmp.NO_CHANGE


def test_floor_ignores_rare_events_and_info_metrics_are_not_gated():
    # 1 fault per 10,000 iterations -> 2: +100% but below the 0.01 floor.
    assert _judge([0.0001] * 5, [0.0002] * 5, "page-faults")[0] == cmp.NO_CHANGE
    assert _judge([0.0] * 5, [0.005] * 5, "page-faults")[0] == cmp.NO_CHANGE
    assert _judge([0.0] * 5, [1.0] * 5, "page-faults")[0] == cmp.REGRESSION
    assert _judge([0.0] * 5, [3.0] * 5, "context-switches")[0] == cmp.NOT_GATED


def test_threshold_override_changes_the_verdict():
    base = [1000.0] * 5
    cont = [1050.0] * 5
    assert _judge(base, cont)[0] == cmp.REGRESSION
    assert _judge(base, cont, overrides=[thresholds.parse_override("instructions=10")])[0] \
        == cmp.NO_CHANGE


def test_compare_files_end_to_end(fixture_path):
    base = benchjson.load(str(fixture_path("compare", "instr_base.json")))
    regression = benchjson.load(str(fixture_path("compare", "instr_regression.json")))
    result = cmp.compare(base, regression)
    regressed = {(r.benchmark, r.metric) for r in result.regressions}
    names = [b.name for b, _ in result.pairing.common]
    # make_edited.py raised instructions by 5% in the first two benchmarks.
    assert regressed == {(names[0], "instructions"), (names[1], "instructions")}
    assert cmp.exit_code(result) == 1
    geo = next(g for g in result.geomeans if g.metric == "instructions")
    assert 0 < geo.change < 0.05 and geo.benchmarks == len(names)
    only_times = cmp.compare(base, regression, metric_patterns=["time"])
    assert {r.metric for r in only_times.rows} >= {"real_time", "cpu_time"}
    assert all(thresholds.classify(r.metric).name == "time" for r in only_times.rows)
    assert cmp.exit_code(only_times) == 0


def test_notes_name_context_differences_and_noisy_metrics(fixture_path):
    base = benchjson.load(str(fixture_path("compare", "base.json")))
    other = benchjson.load(str(fixture_path("compare", "base.json")))
    other.context = {**other.context, "host_name": "ci-runner-7",
                     "pmubench_notice": ""}
    result = cmp.compare(base, other)
    # The machine is said at the top (machine_differences), not in a note.
    assert result.machine_differences == [
        "host_name: 'vm' in the baseline, 'ci-runner-7' in the contender"]
    assert any(n.startswith("context differs: pmubench_notice") for n in result.notes)
    assert not any(n.startswith("context") for n in cmp.compare(base, base).notes)
    # A metric spread wider than its threshold gets a note; with a looser
    # threshold the same data gets none.
    spread = cmp.compare(base, base, [thresholds.parse_override("real_time=0.1")]).notes
    assert any(n.startswith("real_time: the baseline's repetitions spread by") for n in spread)
    calm = cmp.compare(base, base, [thresholds.parse_override("real_time=1000")]).notes
    assert not any(n.startswith("real_time:") for n in calm)


def test_small_samples_gate_only_deterministic_metrics():
    # 3 vs 3 completely separated, +10%: chance alone gives that in 1 of 10
    # pairs of samples of a noisy metric, so only instructions are gated.
    base, cont = [100.0, 101.0, 102.0], [110.0, 111.0, 112.0]
    for noisy in ("real_time", "cpu_time", "task-clock", "cycles", "cache-misses"):
        assert _judge(base, cont, noisy) == (cmp.NOT_GATED, cmp.FEW_REPS), noisy
        assert _judge([100.0], [150.0], noisy, source=matching.SINGLE_RUN) == (
            cmp.NOT_GATED, cmp.THRESHOLD_ONLY), noisy
    assert _judge(base, cont, "instructions:u") == (cmp.REGRESSION, cmp.FEW_REPS)
    # With enough repetitions for the test, times are gated again.
    assert _judge([100.0, 101.0, 102.0, 100.5, 101.5],
                  [120.0, 121.0, 122.0, 120.5, 121.5], "real_time")[0] == cmp.REGRESSION


def test_the_samples_of_a_size_group_become_the_array_numpy_makes():
    samples = [[1.0, -0.0, 2.5], [1e-300, 3.0, 4.0], [5.0, 6.0, 7.0]]
    matrix = cmp._matrix(samples)
    assert matrix.shape == (3, 3)
    assert np.array_equal(matrix, np.array(samples, dtype=float))
    assert math.copysign(1.0, matrix[0, 1]) == -1.0
