"""Verdicts on merged rounds, the weak-gate warning, regressions counted by
benchmark, and the one confidence label: pmubench.compare on synthetic
Google Benchmark files."""

from __future__ import annotations

from pmubench import benchjson
from pmubench.compare import comparison as cmp
from pmubench.compare import merge, render_json, render_markdown, render_text, stats


def _run_file(times: dict[str, list[float]], extra: dict[str, float] | None = None,
              path: str = "x.json") -> dict:
    runs = []
    for name, values in times.items():
        for i, t in enumerate(values):
            run = {"name": name, "run_name": name, "run_type": "iteration",
                   "repetitions": len(values), "repetition_index": i,
                   "threads": 1, "iterations": 100, "real_time": t,
                   "cpu_time": t, "time_unit": "ns"}
            run.update(extra or {})
            runs.append(run)
    return {"context": {}, "benchmarks": runs}


def _merged(rounds: list[dict[str, list[float]]], extra=None, path="m.json"):
    doc = merge.merge([(f"{path}.{i}", _run_file(r, extra)) for i, r in enumerate(rounds)])
    return benchjson.parse(doc, path)


def _verdicts(c: cmp.Comparison, metric: str = "cpu_time") -> dict[str, cmp.Row]:
    return {r.benchmark: r for r in c.rows if r.metric == metric}


def test_two_rounds_that_drift_apart_are_not_a_time_regression():
    # Every head repetition is 30% slower, as when the machine got busier
    # between the runs: with 2 rounds a side the test has 2 v 2 run medians.
    base = _merged([{"BM_A": [10, 10.1, 10.2]}, {"BM_A": [10, 10.1, 10.2]}])
    head = _merged([{"BM_A": [13, 13.1, 13.2]}, {"BM_A": [13, 13.1, 13.2]}])
    row = _verdicts(cmp.compare(base, head))["BM_A"]
    assert row.mode == cmp.FEW_ROUNDS
    assert row.verdict == cmp.NOT_GATED
    # The same values in one run of 6 repetitions are a regression.
    one_base = benchjson.parse(_run_file({"BM_A": [10, 10.1, 10.2] * 2}), "b")
    one_head = benchjson.parse(_run_file({"BM_A": [13, 13.1, 13.2] * 2}), "h")
    row = _verdicts(cmp.compare(one_base, one_head))["BM_A"]
    assert row.mode == cmp.U_TEST and row.verdict == cmp.REGRESSION


def test_four_rounds_a_side_test_the_run_medians():
    base = _merged([{"BM_A": [10 + k, 10.5 + k, 11 + k]} for k in (0, .1, .2, .3)])
    head = _merged([{"BM_A": [13 + k, 13.5 + k, 14 + k]} for k in (0, .1, .2, .3)])
    row = _verdicts(cmp.compare(base, head))["BM_A"]
    assert row.mode == cmp.U_TEST
    assert row.verdict == cmp.REGRESSION
    assert row.p_value == stats.min_two_sided_p(4, 4)  # 4 v 4 medians, not 12 v 12
    assert row.baseline.n == 12  # the center is still of every repetition


def test_deterministic_metrics_keep_every_repetition_across_rounds():
    base = _merged([{"BM_A": [10, 10, 10]}] * 2, {"instructions": 1000.0})
    head = _merged([{"BM_A": [10, 10, 10]}] * 2, {"instructions": 1100.0})
    row = _verdicts(cmp.compare(base, head), "instructions")["BM_A"]
    assert row.mode == cmp.U_TEST and row.verdict == cmp.REGRESSION


def test_regressions_are_counted_by_benchmark_too():
    base = benchjson.parse(_run_file({"BM_A": [10] * 5, "BM_B": [10] * 5},
                                     {"instructions": 100.0}), "b")
    head_doc = _run_file({"BM_A": [10] * 5}, {"instructions": 120.0})
    head_doc["benchmarks"] += _run_file({"BM_B": [10] * 5},
                                        {"instructions": 100.0})["benchmarks"]
    head = benchjson.parse(head_doc, "h")
    c = cmp.compare(base, head, alpha=0.05)
    assert c.regressed_benchmarks == ["BM_A"]
    line = render_text.result_line(c)
    assert line.startswith("Result: FAIL: 1 benchmark(s) regressed; ")
    assert render_json.to_dict(c, 1)["regressed_benchmarks"] == ["BM_A"]
    assert "in 1 benchmark(s)" in render_markdown.render(c).splitlines()[0]


def test_a_comparison_without_deterministic_counters_warns_in_every_format():
    base = benchjson.parse(_run_file({"BM_A": [10, 11, 12]}), "b")
    head = benchjson.parse(_run_file({"BM_A": [10, 11, 12]}), "h")
    c = cmp.compare(base, head)
    assert len(c.warnings) == 1
    assert "gated nothing" in c.warnings[0]
    assert "--counters=instructions" in c.warnings[0]
    assert "WARNING: this comparison gated nothing" in render_text.render(c)
    assert ":warning:" in render_markdown.render(c)
    assert render_json.to_dict(c, 0)["warnings"] == c.warnings


def test_times_gated_but_nothing_deterministic_is_a_weaker_warning():
    base = benchjson.parse(_run_file({"BM_A": [10, 11, 12, 13, 14]},
                                     {"page-faults": 0.0}), "b")
    head = benchjson.parse(_run_file({"BM_A": [10, 11, 12, 13, 14]},
                                     {"page-faults": 0.0}), "h")
    c = cmp.compare(base, head)
    assert c.warnings and c.warnings[0].startswith("nothing deterministic was gated")
    assert "(page-faults) is zero in both files" in c.warnings[0]
    # A non-zero instruction count silences it.
    base = benchjson.parse(_run_file({"BM_A": [10] * 5}, {"instructions": 5.0}), "b")
    assert cmp.compare(base, base).warnings == []


def test_one_confidence_label_everywhere():
    base = benchjson.parse(_run_file({"BM_A": [10, 11, 12, 13]},
                                     {"instructions": 5.0}), "b")
    c = cmp.compare(base, base, alpha=0.03)
    assert stats.confidence_label(0.03) == "97%"
    assert "CI: 97% Hodges-Lehmann" in render_text.render(c)
    assert "97% Hodges-Lehmann" in render_markdown.render(c)
    assert render_json.to_dict(c, 0)["confidence"] == "97%"


def test_benchmarks_gated_on_nothing_deterministic_are_named():
    base_doc = _run_file({"BM_A": [10] * 5}, {"instructions": 5.0})
    base_doc["benchmarks"] += _run_file({"BM_B": [10] * 5},
                                        {"instructions": 0.0})["benchmarks"]
    base = benchjson.parse(base_doc, "b")
    c = cmp.compare(base, base, overrides=[])
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("1 of 2 benchmarks (e.g. BM_B) have no "
                                    "instruction-class counter")
