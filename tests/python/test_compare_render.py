"""Tests for the report renderers in scripts/pmubench/render/ (formats beyond
what test_compare_cli.py checks through the script)."""

from __future__ import annotations

import dataclasses
import math

from pmubench.runs import benchjson
from pmubench.verdicts import comparison, stats
from pmubench.render import formatting, compare_markdown as render_markdown


def test_markdown_details_stay_under_githubs_comment_limit(fixture_path):
    base = benchjson.load(str(fixture_path("compare", "instr_base.json")))
    cont = benchjson.load(str(fixture_path("compare", "instr_regression.json")))
    # 40 copies of every benchmark under new names: ~2,500 rows.
    for side in (base, cont):
        side.runs = [dataclasses.replace(r, run_name=f"{r.run_name}/copy:{i}",
                                         name=f"{r.name}/copy:{i}")
                     for i in range(40) for r in side.runs]
    result = comparison.compare(base, cont)
    assert len(result.rows) > render_markdown.MAX_DETAIL_ROWS
    text = render_markdown.render(result)
    assert len(text) < 65536
    assert f"The {render_markdown.MAX_DETAIL_ROWS} largest changes of" in text
    # The regressions are among the rows kept.
    details = text.split("<details>")[1]
    assert details.count("**regression**") == len(result.regressions)



def test_value_formatting():
    assert formatting.value(0) == "0"
    assert formatting.value(1234.5) == "1.234k"  # 4 significant digits
    assert formatting.value(2.5e9) == "2.5G"
    assert formatting.value(0.6277) == "0.6277"
    assert formatting.value(0.0001234) == "0.000123"
    assert formatting.value(1.5, "ns") == "1.5 ns"


def test_change_and_interval_formatting():
    assert formatting.change(0.05) == "+5.00%"
    assert formatting.change(-0.0012) == "-0.12%"
    assert formatting.change(2.5) == "+250%"
    assert formatting.change(math.inf) == "+inf%"
    assert formatting.change(math.nan) == "n/a"
    iv = stats.Interval(0.041, 0.06, 0.968)
    assert formatting.interval(iv, 0.05) == "[+4.1%, +6.0%]"
    assert formatting.interval(stats.Interval(-0.1, 0.2, 0.9), 0.05) == "[-10.0%, +20.0%] @90%"
    assert formatting.interval(None, 0.05) == "-"
    assert formatting.p_value(0.0001) == "<0.001" and formatting.p_value(None) == "-"


def test_json_report_is_the_dict_one_row_a_line(fixture_path):
    from pmubench.render import compare_json as render_json
    import json
    base = benchjson.load(str(fixture_path("compare", "instr_base.json")))
    cont = benchjson.load(str(fixture_path("compare", "missing_extra.json")))
    result = comparison.compare(base, cont)
    text = render_json.render(result, 0)
    assert json.loads(text) == json.loads(json.dumps(render_json.to_dict(result, 0)))
    rows = [line for line in text.splitlines() if line.startswith('    {"benchmark": ')]
    assert len(rows) == len(result.rows)


def test_interval_heading_says_when_rows_carry_a_lower_level():
    class Row:
        def __init__(self, level):
            self.interval = None if level is None else stats.Interval(-0.1, 0.1, level)

    full = formatting.interval_heading([Row(0.968), Row(None)], 0.05, "95%")
    assert full == "95% Hodges-Lehmann interval"
    low = formatting.interval_heading([Row(0.968), Row(0.9)], 0.05, "95%")
    assert low.startswith("95% Hodges-Lehmann interval (rows marked @N%")


def test_text_and_markdown_headers_explain_rows_at_a_lower_level(fixture_path):
    from pmubench.render import compare_text as render_text
    base = benchjson.load(str(fixture_path("compare", "instr_base.json")))
    cont = benchjson.load(str(fixture_path("compare", "instr_regression.json")))
    for reps in (None, 3):  # every repetition (95% reached), then 3 a side
        if reps is not None:
            for side in (base, cont):
                seen: dict[str, int] = {}
                side.runs = [r for r in side.runs
                             if seen.setdefault(r.run_name, 0) < reps
                             and not seen.update({r.run_name: seen[r.run_name] + 1})]
        result = comparison.compare(base, cont)
        marked = any("@" in formatting.interval(r.interval, result.alpha)
                     for r in result.rows)
        assert marked == (reps == 3)
        for text in (render_text.render(result), render_markdown.render(result)):
            assert ("rows marked @N%" in text) == marked


def test_row_cells_of_exact_rows_keep_the_sign_of_a_zero_change():
    """row_cells makes an exact row's cells once for each centers and
    change: a change of -0.0 still says '-0.00%', +0.0 '+0.00%', and
    each row's cells are what center, row_change and verdict say."""
    threshold = comparison.thresholds.resolve("instructions", [], "perf_event", False)

    def row(name: str, b: float, c: float, change: float) -> comparison.Row:
        sides = [comparison.Side(x, 3, "repetitions", [x] * 3) for x in (b, c)]
        return comparison.Row(name, "instructions", "", *sides, change, 1.0, None,
                              comparison.U_TEST, threshold, False,
                              comparison.NO_CHANGE, exact=True)

    rows = [row("A", 5.0, 5.0, 0.0), row("B", 5.0, 5.0, -0.0), row("C", 5.0, 5.0, 0.0),
            row("D", 0.0, 0.0, -0.0), row("E", -0.0, 0.0, 0.0), row("F", 4.0, 6.0, 0.5)]
    cells = formatting.row_cells(rows, 0.05)
    assert [c[3] for c in cells] == ["+0, +0.00%", "+0, -0.00%", "+0, +0.00%",
                                     "+0, -0.00%", "+0, +0.00%", "+2, +50.00%"]
    for r, c in zip(rows, cells):
        assert c == (r.benchmark, formatting.center(r, r.baseline),
                     formatting.center(r, r.contender), formatting.row_change(r),
                     "-", formatting.p_value(r.p_value), formatting.verdict(r))


def test_row_cells_of_other_rows_are_value_and_change():
    """row_cells writes the common centers and changes itself: at and
    around every edge of value() and change() it says what they say."""
    threshold = comparison.thresholds.resolve("cpu_time", [], "perf_event", False)
    centers = [0.0, -0.0, 0.001, 0.000999, 999.9, 1000.0, -999.9, -0.5, 12.345678,
               math.inf, -math.inf, math.nan, 1e15]
    changes = [0.0, -0.0, 0.99999, 0.999999999, 1.0, -1.0, -0.99999, 0.5, math.inf,
               -math.inf, math.nan, 12.0]
    rows = []
    for i, (x, change) in enumerate(zip(centers, changes + [0.1])):
        for unit in ("ns", ""):
            sides = [comparison.Side(v, 3, "repetitions", [v] * 3) for v in (x, -x)]
            rows.append(comparison.Row(f"B{i}", "cpu_time", unit, *sides, change, None,
                                       None, comparison.U_TEST, threshold, False,
                                       comparison.NO_CHANGE))
    for r, cells in zip(rows, formatting.row_cells(rows, 0.05)):
        assert cells[1:4] == (formatting.value(r.baseline.center, r.unit),
                              formatting.value(r.contender.center, r.unit),
                              formatting.change(r.change))
