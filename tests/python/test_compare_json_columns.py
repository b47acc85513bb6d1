"""compare_json writes a part of rows of the common kind a column at a
time (render/json_row_columns.py): the same bytes as _RowText.row of each
row, and no column-wise text at all for a part holding any other row."""

from __future__ import annotations

import numpy as np
import pytest

from pmubench.render import compare_json, json_row_columns
from pmubench.verdicts import comparison as cmp
from pmubench.verdicts import stats, thresholds, work


def _row(**changes) -> cmp.Row:
    threshold = thresholds.resolve("instructions", [], "perf_event", False)
    side = cmp.Side(1.5, 3, "repetitions", [-0.0, 1.5, 2e300], 1)
    row = cmp.Row("BM_\u00fc\x1b|x", "instructions", "", side, side, 0.25, 0.1,
                  stats.Interval(-0.5, 0.75, 0.9), cmp.U_TEST, threshold, False,
                  cmp.NO_CHANGE)
    return row._replace(**changes)


def _common_rows() -> list[cmp.Row]:
    """Rows of the common kind whose values a shortcut could get wrong."""
    time = thresholds.resolve("cpu_time", [], "perf_event", False)
    even = cmp.Side(1.25, 4, "repetitions", [1.0, 1.5, 1.0, 1.5], 1)
    zero = cmp.Side(-0.0, 4, "repetitions", [0.0, -0.0, 0.0, 5e-324], 1)
    return [
        _row(),
        _row(change=-0.0, p_value=None, interval=None, changed_beyond=True),
        _row(change=0.0, p_value=-0.0, higher_is_better=True, verdict=cmp.REGRESSION),
        _row(benchmark="BM_b", metric="cpu_time", unit="ns", threshold=time,
             baseline=even, contender=zero, change=1e-17, p_value=np.float64(0.03),
             interval=stats.Interval(np.float64(-0.0), np.float64(0.1), np.float64(0.9))),
        _row(baseline=cmp.Side(np.float64(2.0), 3, "repetitions",
                               [np.float64(1.0), 2.0, 3.0], 1), change=1e300),
        _row(mode=cmp.FEW_REPS, interval=None, p_value=1.0),
    ]


def _row_by_row(rows: list[cmp.Row]) -> list[str]:
    writer = compare_json._RowText()
    return ["    " + writer.row(r) for r in rows]


def test_common_rows_are_written_as_row_writes_them():
    rows = _common_rows()
    texts = json_row_columns.row_texts(rows, compare_json._RowText())
    assert texts is not None
    assert texts == _row_by_row(rows)


@pytest.mark.parametrize("odd", [
    {"change": float("inf")}, {"change": float("nan")}, {"change": 3},
    {"change": 1e307},                       # its percentage overflows
    {"p_value": float("nan")}, {"higher_is_better": 1}, {"changed_beyond": 0},
    {"work": work.WorkChange(("a", "b"))},
    {"interval": stats.Interval(float("inf"), 1.0, 0.9)},
    {"baseline": cmp.Side(2, 1, "single run", [2], 1)},
    {"baseline": cmp.Side(2.0, 3, "repetitions", [2.0, 2, 3.0], 1)},
    {"baseline": cmp.Side(2.0, 3.0, "repetitions", [2.0, 2.0, 3.0], 1)},
    {"baseline": cmp.Side(float("inf"), 3, "repetitions", [1.0, 2.0, 3.0], 1)},
])
def test_a_part_holding_another_row_is_left_to_row(odd):
    rows = _common_rows() + [_row(**odd)]
    assert json_row_columns.row_texts(rows, compare_json._RowText()) is None


def test_values_in_a_tuple_are_written_as_a_list():
    side = cmp.Side(2.0, 3, "repetitions", (1.0, 2.0, 3.0), 1)
    rows = _common_rows() + [_row(contender=side)]
    assert json_row_columns.row_texts(rows, compare_json._RowText()) == _row_by_row(rows)


def test_render_writes_mixed_parts_as_before(monkeypatch):
    rows = (_common_rows() * 3 + [_row(change=float("inf"))]) * 2
    comparison = cmp.Comparison("a.json", "b.json", 0.05, rows, [], [], None)
    comparison.pairing = type("P", (), {"only_in_baseline": [], "only_in_contender": [],
                                        "failed": [], "metrics_only_in_baseline": {},
                                        "metrics_only_in_contender": {}})()
    monkeypatch.setattr(compare_json, "_ROWS_A_PART", 5)
    fast = compare_json.render(comparison, 0)
    monkeypatch.setattr(json_row_columns, "row_texts", lambda rows, writer: None)
    assert fast == compare_json.render(comparison, 0)


def _odd_rows() -> list[cmp.Row]:
    """Rows whose sides are all of one odd size: each center's text is
    taken from its value's (json_row_columns._odd_sample_texts)."""
    def side(values, center):
        return cmp.Side(center, len(values), "repetitions", values, 1)
    level = 1.0 - 1.0 / 3.0
    return [
        _row(baseline=side([0.1, 0.30000000000000004, 0.2], 0.2),
             contender=side([-1.5, -2.5, -1.5], -1.5), p_value=0.1,
             interval=stats.Interval(-0.5, 0.75, level)),
        _row(baseline=side([np.float64(2.0), 1e-300, 3.5], 2.0),
             contender=side([7.0, 7.0, 7.0], np.float64(7.0)), p_value=np.float64(0.1),
             interval=stats.Interval(0.25, 1e300, np.float64(level))),
        _row(baseline=side([5e-324, 1.0, 2.0], 1.0),
             contender=side([1.0, 2.0, 3.0], 2.0), p_value=0.7,
             interval=stats.Interval(-0.0, 0.0, level)),
    ]


def test_odd_samples_take_each_center_from_its_values():
    rows = _odd_rows() * 2
    assert json_row_columns.row_texts(rows, compare_json._RowText()) == _row_by_row(rows)


@pytest.mark.parametrize("other", [
    # a zero center: -0.0 and 0.0 are equal values with two texts
    {"baseline": cmp.Side(-0.0, 3, "repetitions", [0.0, -0.0, -0.0], 1)},
    {"baseline": cmp.Side(0.0, 3, "repetitions", [-0.0, 0.0, 1.0], 1)},
    # a center none of its values, and an even sample beside odd ones
    {"baseline": cmp.Side(2.5, 3, "repetitions", [1.0, 2.0, 3.0], 1)},
    {"baseline": cmp.Side(1.5, 4, "repetitions", [1.0, 1.0, 2.0, 2.0], 1)},
])
def test_odd_samples_beside_another_side_are_written_as_before(other):
    rows = _odd_rows() + [_row(**other)] + _odd_rows()
    assert json_row_columns.row_texts(rows, compare_json._RowText()) == _row_by_row(rows)


def test_repeated_numbers_keep_the_sign_of_each_zero():
    """0.0 and -0.0 are one key of a cache of texts, and two texts."""
    rows = _odd_rows() + [_row(p_value=0.0), _row(p_value=-0.0),
                          _row(interval=stats.Interval(0.5, 1.0, -0.0)),
                          _row(interval=stats.Interval(0.5, 1.0, 0.0))] + _odd_rows()
    assert json_row_columns.row_texts(rows, compare_json._RowText()) == _row_by_row(rows)
