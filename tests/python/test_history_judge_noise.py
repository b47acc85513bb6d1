"""judge on hosted-runner noise (pmubench.history.judge): a replay of a
generated history whose runs move between runners of different speed
cries wolf on under 1% of runs and still fails the planted regression
(scripts/dev/judge_replay.py); the sd floor and the run's common shift
each keep a short quiet segment from judging a runner change; an exact
count one instruction worse is still a regression."""

from __future__ import annotations

import numpy as np
import pytest

from dev import judge_replay
from pmubench.history import detect, judge
from pmubench.verdicts import metrics, thresholds


def _model(metric: str, pct: float):
    """The metric's model, and its threshold made pct (a --threshold rule)."""
    rule = thresholds.parse_override(f"{metric}={pct:g}")
    return metrics.describe(metric, "native", False), thresholds.resolve(metric, [rule], "native",
                                                                         False)


def test_replay_of_a_runner_noisy_history_rarely_cries_wolf(tmp_path):
    judge_replay.generate(str(tmp_path), commits=170, benchmarks=6)
    files = judge_replay.run_files(str(tmp_path))
    result = judge_replay.replay(files, detect.Params())
    planted = judge_replay.commit_of(judge_replay.PLANTED[1])
    unconfirmed = len(result["alarms"]) - len(result["confirmed"])
    assert unconfirmed / (len(files) - 1) < 0.01
    assert (planted, {judge_replay.PLANTED[0]}) in result["alarms"]
    assert result["exits"][0] > 150


def test_floor_from_the_series_spread_widens_a_quiet_short_segment():
    segment = np.array([100.0, 100.1, 99.9, 100.0, 100.05])
    head = [104.0, 104.0, 104.0]
    model, threshold = _model("real_time", 2.0)
    assert judge.judge_noisy(segment, head, model, threshold, 0.01).verdict == "regression"
    row = judge.judge_noisy(segment, head, model, threshold, 0.01, floor=3.0)
    assert row.verdict == "same"


def test_spread_keeps_frequent_runner_shifts_but_not_one_step():
    rng = np.random.default_rng(2)
    quiet = 100 + rng.normal(0, 0.5, 200)
    stepped = quiet + np.where(np.arange(200) >= 100, 30.0, 0.0)
    runners = quiet + rng.choice([0.0, 5.0], 200)
    assert judge.spread(stepped) == pytest.approx(judge.spread(quiet), rel=0.1)
    assert judge.spread(runners) > 3 * judge.spread(quiet)


def test_run_shift_is_the_median_change_of_the_run():
    seg = np.full(10, 100.0)
    judged = [([107.0], seg), ([106.0], seg), ([108.0], seg), ([130.0], seg)]
    assert judge.run_shift(judged) == pytest.approx(0.075)
    assert judge.run_shift(judged[:2]) == 0.0


def test_an_exact_count_one_instruction_worse_is_still_a_regression():
    model, threshold = _model("callgrind/instructions/", 0.0)
    row = judge.judge_exact(1_000_000.0, [1_000_001.0] * 3, model, threshold)
    assert row.verdict == "regression"
