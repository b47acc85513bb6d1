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
