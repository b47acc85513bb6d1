"""Tests for scripts/pmubench/verdicts/batch.py: a block of rows judged at
once gives, row by row, what comparison.judge gives."""

from __future__ import annotations

import json
import math
import random

import numpy as np

from pmubench.runs import benchjson, matching
from pmubench.verdicts import batch, stats, thresholds
from pmubench.verdicts import comparison as cmp

_EDGES = [[-0.0, 0.0], [0.0, -0.0], [3.0, 1.0, 2.0], [2.0, 2.0, 1.0, 7.5],
          [-4.0, 1e300, 0.5, 9.0, 9.0], [0.0, 0.0, 0.0], [-0.0, -0.0, 1.0, -1.0]]


def test_medians_are_stats_median_bit_for_bit():
    """Odd and even sizes, ties, negatives and signed zeros (a zero
    median keeps the sign sorted() gives it)."""
    rng = random.Random(5)
    samples = _EDGES + [[rng.uniform(-5, 5) for _ in range(rng.randint(2, 9))]
                        for _ in range(300)]
    for size in {len(s) for s in samples}:
        group = [s for s in samples if len(s) == size]
        got = batch.medians(np.array(group, dtype=float)).tolist()
        assert [repr(g) for g in got] == [repr(stats.median(s)) for s in group]


def test_zero_medians_with_and_without_a_negative_zero_are_stats_median():
    """Rows of zeros, signed zeros and opposite values (whose median is a
    zero made by arithmetic): numpy's median is used where no -0.0 is in
    the row, sorted()'s where one is; both are stats.median's."""
    rng = random.Random(7)
    for size in range(2, 8):
        group = [[rng.choice((-0.0, 0.0, 0.0, 1.0, -1.0)) for _ in range(size)]
                 for _ in range(400)]
        got = batch.medians(np.array(group, dtype=float)).tolist()
        assert [repr(g) for g in got] == [repr(stats.median(s)) for s in group]


def _samples(rng: random.Random, size: int) -> list[float]:
    kind = rng.randrange(6)
    if kind == 0:
        return [100.0] * size                       # every value equal
    if kind == 1:
        return [float(rng.randrange(3)) for _ in range(size)]   # ties, zeros
    if kind == 2:
        return [rng.choice([-1.0, 0.0, 2.0]) for _ in range(size)]
    scale = rng.choice([1.0, 1.02, 1.3, 0.7])
    return [100.0 * scale * rng.uniform(0.99, 1.01) for _ in range(size)]


def _one_by_one(b_rows, c_rows, threshold, higher, alpha):
    out = []
    for b, c in zip(b_rows, c_rows):
        side_b = cmp.Side(stats.median(b), len(b), matching.REPETITIONS, b)
        side_c = cmp.Side(stats.median(c), len(c), matching.REPETITIONS, c)
        # The test as compare() ran it before blocks: the _many functions
        # (scipy's per-row mannwhitneyu can differ in the last bit).
        one_b, one_c = np.array([b]), np.array([c])
        tested = (float(stats.mann_whitney_p_many(one_b, one_c)[0]),
                  stats.ratio_interval_many(one_b, one_c, alpha)[0])
        j = cmp.judge(side_b, side_c, threshold, higher, alpha, tested)
        out.append((side_b.center, side_c.center, j.change, j.p_value,
                    j.interval, j.mode, j.verdict))
    return out


def test_a_block_judges_each_row_as_judge_does():
    """Sizes with the test (5 vs 5, 4 vs 6, 10 vs 10) and without (2 vs 2,
    3 vs 3: complete separation), metrics worse higher and lower, exact
    and noisy, a threshold off: every field equal, row by row."""
    rng = random.Random(11)
    rules = [thresholds.parse_override("context-switches=2")]
    verdicts = set()
    for n, m in ((5, 5), (4, 6), (10, 10), (2, 2), (3, 3)):
        for metric in ("instructions", "real_time", "IPC", "task-clock",
                       "context-switches", "pmu_running_fraction"):
            threshold = thresholds.resolve(metric, rules)
            higher = benchjson.is_higher_better(metric)
            b_rows = [_samples(rng, n) for _ in range(60)]
            c_rows = [[v * rng.choice([1.0, 1.1, 0.9]) for v in _samples(rng, m)]
                      for _ in range(60)]
            for alpha in (0.05, 0.2):
                block = batch.judge_block(np.array(b_rows), np.array(c_rows),
                                          threshold, higher, alpha)
                got = list(zip(block.b_centers, block.c_centers, block.changes,
                               block.p_values, block.intervals,
                               [block.mode] * len(b_rows), block.verdicts))
                want = _one_by_one(b_rows, c_rows, threshold, higher, alpha)
                assert _texts(got) == _texts(want), (n, m, metric, alpha)
                verdicts.update(block.verdicts)
    assert verdicts == {cmp.REGRESSION, cmp.IMPROVEMENT, cmp.NO_CHANGE, cmp.NOT_GATED}


def _texts(rows):
    """Each row with its floats as repr (-0.0 apart from 0.0, inf and nan
    kept)."""
    def text(x):
        if isinstance(x, float):
            return "nan" if math.isnan(x) else repr(x)
        if isinstance(x, stats.Interval):
            return (repr(x.low), repr(x.high), repr(x.level))
        return x
    return [tuple(text(x) for x in row) for row in rows]


def _file(tmp_path, name, reps, scale, extra=None):
    rng = random.Random(name)
    runs = []
    for b in range(12):
        bench = f"BM_Case/{b}"
        for i in range(reps[b % len(reps)]):
            slow = scale if b % 4 == 0 else 1.0
            run = {"name": bench, "family_index": 0, "per_family_instance_index": b,
                   "run_name": bench, "run_type": "iteration", "repetitions": 5,
                   "repetition_index": i, "threads": 1, "iterations": 1000,
                   "real_time": (10.0 + b) * slow * rng.uniform(0.98, 1.02),
                   "cpu_time": (10.0 + b) * slow * rng.uniform(0.98, 1.02),
                   "time_unit": "us" if b % 3 else "ns",
                   "instructions": (100.0 + b) * slow, "page-faults": float(b % 2),
                   "context-switches": -0.0 if b % 5 else 0.0}
            run.update(extra or {})
            runs.append(run)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"context": {"host_name": "vm"}, "benchmarks": runs}))
    return str(path)


def test_the_column_path_gives_the_rows_of_the_row_by_row_path(tmp_path):
    """Files of one shape are judged from their metric columns; the same
    files without them (row by row, then blocks of staged rows) give the
    same rows: sizes 5 vs 5, 3 vs 4 and 2 vs 6, a metric one file lacks,
    signed zeros, two time units."""
    base = benchjson.load(_file(tmp_path, "base", [5, 3, 2], 1.0))
    head = benchjson.load(_file(tmp_path, "head", [5, 4, 6], 1.3, {"minor-faults": 1.0}))
    assert base.metric_columns() is not None and head.metric_columns() is not None
    by_columns = cmp.compare(base, head)
    base.shared_columns = head.shared_columns = None
    by_rows = cmp.compare(base, head)
    assert len(by_columns.rows) == len(by_rows.rows) == 12 * 5
    assert repr(by_columns.rows) == repr(by_rows.rows)
    assert {r.verdict for r in by_columns.rows} >= {cmp.REGRESSION, cmp.NO_CHANGE}


def test_metric_columns_are_given_only_for_the_runs_they_describe(tmp_path):
    bench = benchjson.load(_file(tmp_path, "base", [5], 1.0))
    columns = bench.metric_columns()
    assert list(columns) == ["real_time", "cpu_time", "instructions", "page-faults",
                             "context-switches"]
    assert list(columns["instructions"]) == [r.metrics["instructions"] for r in bench.runs]
    bench.runs = bench.runs[:-1]
    assert bench.metric_columns() is None


def test_files_of_one_shape_still_say_when_the_work_changed(tmp_path):
    """The column path looks for work changes only where there can be one
    (a label or a rate): a changed label and a changed rate are found."""
    for field, base_value, head_value in (("label", "74%", "73%"),
                                          ("items_per_second", 1e6, 2e6)):
        base = benchjson.load(_file(tmp_path, "base", [5], 1.0, {field: base_value}))
        head = benchjson.load(_file(tmp_path, "head", [5], 1.0, {field: head_value}))
        assert base.metric_columns() is not None
        rows = cmp.compare(base, head).rows
        assert rows and all(r.work is not None for r in rows), field
    plain = cmp.compare(benchjson.load(_file(tmp_path, "base", [5], 1.0)),
                        benchjson.load(_file(tmp_path, "head", [5], 1.0)))
    assert all(r.work is None for r in plain.rows)
