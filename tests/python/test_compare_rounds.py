"""Verdicts on merged rounds, the weak-gate warning, regressions counted by
benchmark, and the one confidence label: pmubench.compare on synthetic
Google Benchmark files."""

from __future__ import annotations

from pmubench.runs import benchjson
from pmubench.verdicts import comparison as cmp
from pmubench.runs import merge
from pmubench.render import (compare_json as render_json,
                             compare_markdown as render_markdown,
                             compare_text as render_text)
from pmubench.verdicts import stats, thresholds


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


def test_a_comparison_without_deterministic_counters_is_inconclusive_in_every_format():
    # 3 repetitions and no instruction counter: nothing could fail (issue 21).
    base = benchjson.parse(_run_file({"BM_A": [10, 11, 12]}), "b")
    head = benchjson.parse(_run_file({"BM_A": [13, 14, 15]}), "h")
    c = cmp.compare(base, head)
    assert c.inconclusive == (
        "no instruction-class counter in either file; times need 4 repetitions "
        "a side for the test at alpha 0.05, and these files have 3 a side "
        "(--benchmark_repetitions=4; ci_compare.sh --reps 4); count "
        "instructions to gate code changes exactly (--counters=instructions on "
        "a machine with a hardware PMU, scripts/pmu-vm, or pmubench's callgrind "
        "backend where there is no PMU)")
    assert c.warnings == []      # the headline says it, once
    assert cmp.exit_code(c) == cmp.EXIT_INCONCLUSIVE == 4
    assert cmp.exit_code(c, allow_inconclusive=True) == 0
    text = render_text.render(c)
    assert text.startswith("INCONCLUSIVE: nothing in this comparison could catch "
                           "a slowdown: no instruction-class counter")
    assert "Result: INCONCLUSIVE: " in text and "PASS" not in text
    markdown = render_markdown.render(c)
    assert markdown.startswith("### pmubench comparison: :warning: INCONCLUSIVE")
    assert ":white_check_mark:" not in markdown
    assert "times need 4 repetitions a side" in markdown
    # The +30% time rows nothing gated are in sight, not only in <details>.
    visible = markdown.split("<details>")[0]
    assert "Changed beyond the threshold but not gated" in visible
    assert "`BM_A` | cpu_time" in visible
    assert "No metric changed beyond its threshold." not in markdown
    report = render_json.to_dict(c, 4)
    assert report["result"] == "inconclusive" and report["reason"] == c.inconclusive
    assert report["exit_code"] == 4
    # --allow-inconclusive: exit 0, the words stay.
    assert render_json.to_dict(c, 0)["result"] == "inconclusive"


def test_inconclusive_says_the_cause_it_finds():
    reps3 = {"BM_A": [10, 11, 12]}
    def cause(base_doc, head_doc=None, overrides=(), patterns=None):
        base = benchjson.parse(base_doc, "b.json")
        head = benchjson.parse(head_doc or base_doc, "h.json")
        return cmp.compare(base, head, [thresholds.parse_override(o) for o in overrides],
                           metric_patterns=patterns).inconclusive
    # Two rounds a side: the rounds are the unit for times.
    merged = merge.merge([(f"r{i}", _run_file({"BM_A": [10, 11, 12]})) for i in range(2)])
    assert ("times need 4 rounds a side for the test at alpha 0.05, and these "
            "files have 2 a side") in cause(merged)
    # One run a side.
    assert ("times need repetitions on both sides for the test (4 or more a "
            "side at alpha 0.05), and both files hold one run per benchmark"
            ) in cause(_run_file({"BM_A": [10]}))
    # Instructions that are zero in both files do not count.
    assert cause(_run_file(reps3, {"instructions": 0.0})).startswith(
        "no instruction-class counter with a non-zero value (instructions is zero "
        "in both files); times need")
    # Instruction thresholds turned off; times off; everything off.
    five = _run_file({"BM_A": [10, 11, 12, 13, 14]}, {"instructions": 5.0})
    assert cause(five, overrides=["instructions=off", "time=off"]) == (
        "every threshold is off (--threshold time=off, instructions=off)")
    assert cause(five, overrides=["instructions=off"]) is None   # times tested
    assert cause(five, overrides=["default=off"]) == (
        "every threshold is off (--threshold default=off)")
    # --metrics left the counts out: said so, not "no counter in the files".
    assert cause(five, patterns=["time"]) is None
    assert cause(_run_file(reps3, {"instructions": 5.0}), patterns=["time"]).startswith(
        "--metrics left out the instruction-class counters (instructions); times need")
    # expected_* values are declared constants, not counts.
    assert cause(_run_file(reps3, {"expected_instructions": 102.0})).startswith(
        "no instruction-class counter in either file")
    # A counted instruction makes it conclusive, one run a side included.
    assert cause(_run_file({"BM_A": [10]}, {"instructions": 5.0})) is None


def test_an_explicit_threshold_the_files_cannot_gate_is_refused():
    merged = merge.merge([(f"r{i}", _run_file({"BM_A": [10, 11, 12]})) for i in range(2)])
    base = benchjson.parse(merged, "base.json")
    c = cmp.compare(base, base, [thresholds.parse_override("cpu_time=5")])
    assert c.refusals == [
        "--threshold cpu_time=5: gates nothing on these files: cpu_time needs 4 "
        "rounds a side for the test at alpha 0.05, and these files have 2 a side "
        "(each round is one value; ci_compare.sh --rounds 4); run with that, or "
        "drop --threshold cpu_time=5"]
    # "off", "default" and a rule that gates something are not refused.
    for rule in ("cpu_time=off", "default=5", "instructions=5"):
        doc = merge.merge([(f"r{i}", _run_file({"BM_A": [10, 11, 12]},
                                               {"instructions": 3.0})) for i in range(2)])
        bench = benchjson.parse(doc, "b")
        assert cmp.compare(bench, bench, [thresholds.parse_override(rule)]).refusals == []
    # Four rounds a side: honoured.
    four = benchjson.parse(merge.merge(
        [(f"r{i}", _run_file({"BM_A": [10, 11, 12]})) for i in range(4)]), "b")
    c = cmp.compare(four, four, [thresholds.parse_override("cpu_time=5")])
    assert c.refusals == [] and c.inconclusive is None


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
