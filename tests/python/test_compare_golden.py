"""compare.py's text, JSON and markdown byte for byte as they were before
compare was made faster (issue 43, item 2): every case of
tests/python/compare_golden.py (the compare, complexity and allocations
fixtures, and generated mid-size pairs with repetitions, aggregates, single
runs, merged rounds, missing and failed benchmarks, exact counts,
allocation fields and sampled profiles) against the outputs stored under
tests/python/fixtures/compare_golden/."""

from __future__ import annotations

import json

import pytest

import compare_golden as golden


@pytest.mark.parametrize("fmt", golden.FORMATS)
@pytest.mark.parametrize("name", list(golden.CASES))
def test_output_is_byte_identical(name, fmt):
    out = golden.run_case(name, fmt)
    for key, path in golden.expected_files(name, fmt).items():
        expected = path.read_text() if path.exists() else ""
        assert out.get(key, "") == expected, f"{name} --format {fmt}: {key} differs from {path}"


def _report(name: str) -> dict:
    return json.loads(golden.expected_files(name, "json")["stdout"].read_text())


def test_the_cases_reach_every_mode_verdict_and_section():
    """The pinned outputs cover what compare can say: if a case stopped
    reaching a path, pinning its bytes would prove less."""
    reports = [_report(name) for name in golden.CASES]
    rows = [r for report in reports for r in report["rows"]]
    assert {r["mode"] for r in rows} == {"u-test", "few reps", "few rounds", "threshold only"}
    assert {r["verdict"] for r in rows} == {
        "regression", "improvement", "no significant change", "not gated"}
    assert {r["baseline"]["source"] for r in rows} == {
        "repetitions", "median aggregate", "single run"}
    for section in ("only_in_baseline", "only_in_contender", "failed", "notes",
                    "warnings", "attributions", "metrics_only_in_baseline"):
        assert any(report[section] for report in reports), section
    assert {report["exit_code"] for report in reports} == {0, 1, 4}
    generated = _report("generated")
    assert {"allocs_per_iter", "IPC", "items_per_second", "instructions"} <= {
        r["metric"] for r in generated["rows"]}
    assert [a["kind"] for a in generated["attributions"]] == ["estimated"] * 2


def test_the_generated_pair_is_the_same_every_time():
    assert golden.generated_pair(True) == golden.generated_pair(True)
    assert golden.generated_pair(True) != golden.generated_pair(False)


def test_json_rows_are_what_the_json_encoder_writes_for_odd_values():
    """compare_json writes each row itself; for values the pinned cases
    may not hold (an infinite change, -0.0, ints, numpy floats, a work
    change, no interval) it writes what json's encoder writes for _row."""
    import numpy as np
    from pmubench.render import compare_json
    from pmubench.verdicts import comparison as cmp
    from pmubench.verdicts import stats, thresholds, work
    threshold = thresholds.resolve("instructions", [], "perf_event", False)
    side = cmp.Side(-0.0, 3, "repetitions", [-0.0, 0.0, 1.5], 1)
    base = cmp.Row("BM_\u00fc\x1b|x", "instructions", "", side, side, 0.0, None, None,
                   cmp.U_TEST, threshold, False, cmp.NO_CHANGE)
    rows = [
        base,
        base._replace(change=float("inf"), p_value=np.float64(0.5),
                      interval=stats.Interval(-0.0, 2.0, np.float64(0.9)),
                      work=work.WorkChange(("a", "b"))),
        base._replace(change=float("-inf"), changed_beyond=True,
                      baseline=cmp.Side(2, 1, "single run", [2], 1)),
        base._replace(p_value=0.0, contender=cmp.Side(
            7.25, 4, "repetitions", [7.0, 7.5, 7.25, 8.0], 2)),
        # a finite change whose percentage overflows; changes that are not
        # exactly float; flags that are not exactly bool
        base._replace(change=1e307, higher_is_better=1),
        base._replace(change=-1e307, changed_beyond=0),
        base._replace(change=np.float64(0.125), higher_is_better=True),
        base._replace(change=3, changed_beyond=True),
    ]
    encode = json.JSONEncoder(allow_nan=False).encode
    text = compare_json._RowText()
    for row in rows + rows:          # twice: the second from the caches
        assert text.row(row) == encode(compare_json._row(row))
