"""Units in the report (issue 23, item 10, report side): perf's clock events
count nanoseconds and msr/tsc counts TSC cycles; the report's context table,
verdict table, value tables and plot axes say so, as the console does
('task-clock=861ns')."""

from __future__ import annotations

import html
import os

import pytest

from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.report import draw as render
from pmubench.report import html_page, plan_comparison, series
from pmubench.report import write as report_write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "python", "fixtures", "plot")
BASE = os.path.join(FIXTURES, "run_base.json")
CONTENDER = os.path.join(FIXTURES, "run_contender.json")
# --counters=task-clock,page-faults,msr/tsc/: a read overhead and a counter
# of each unit.
AGGREGATES = os.path.join(FIXTURES, "run_aggregates_only.json")


@pytest.mark.parametrize("event, unit", [
    ("task-clock", "ns"), ("cpu-clock", "ns"), ("task-clock:u", "ns"),
    ("msr/tsc/", "TSC cycles"), ("cycles", "cycles"), ("cpu/cycles/u", "cycles"),
    ("page-faults", ""), ("instructions", ""), ("tsc_ticks_per_snapshot", ""),
])
def test_counter_unit(event, unit):
    assert series.counter_unit(event) == unit


def test_read_overhead_gets_units_like_the_console():
    assert series.with_units(
        "task-clock=861 page-faults=0 context-switches=0; msr/tsc/=916 cpu-clock=12.5"
    ) == "task-clock=861 ns page-faults=0 context-switches=0; msr/tsc/=916 TSC cycles cpu-clock=12.5 ns"
    # Anything else is left as written.
    assert series.with_units("none") == "none"
    assert series.with_units("task-clock=n/a") == "task-clock=n/a"


def test_the_context_table_shows_the_read_overhead_with_units():
    bench = benchjson.load(AGGREGATES)
    assert bench.context["pmubench_read_overhead"] == "task-clock=458 page-faults=0 msr/tsc/=916"
    rows = dict(html_page.context_rows(bench.context))
    assert rows["read overhead subtracted per batch"] == (
        "task-clock=458 ns page-faults=0 msr/tsc/=916 TSC cycles")


def test_the_page_shows_units_in_the_context_and_value_tables(tmp_path):
    out = tmp_path / "report"
    report_write.write_report([AGGREGATES], str(out))
    page = (out / "index.html").read_text(encoding="utf-8")
    assert html.escape("task-clock=458 ns page-faults=0 msr/tsc/=916 TSC cycles") in page
    assert "<th>task-clock (ns per iteration)</th>" in page
    assert "<th>msr/tsc/ (TSC cycles per iteration)</th>" in page
    assert "<th>page-faults (events per iteration)</th>" in page


def test_the_verdict_table_gives_task_clock_in_ns():
    c = comparison.compare(benchjson.load(BASE), benchjson.load(CONTENDER))
    rows = [r for r in plan_comparison.verdict_table(c).rows if r[1] == "task-clock"]
    assert rows, "the fixture pair should judge a task-clock row"
    for row in rows:
        assert row[2].endswith(" ns") and row[3].endswith(" ns"), row


def test_plot_axes_name_the_unit(monkeypatch, tmp_path):
    """Every panel of the scaling figure is labelled with its metric's unit:
    task-clock in a time unit, msr/tsc/ in TSC cycles."""
    figures = []
    monkeypatch.setattr(render, "_save", lambda fig, path: figures.append(fig))
    report_write.write_report([AGGREGATES], str(tmp_path / "report"))
    labels = {}
    for fig in figures:
        for ax in fig.axes:
            if ax.get_visible() and ax.get_title():
                labels.setdefault(ax.get_title(), set()).add(ax.get_ylabel() or ax.get_xlabel())
    assert labels["task-clock"] <= {"ns per iteration", "us per iteration"}, labels
    assert labels["msr/tsc/"] == {"TSC cycles per iteration"}, labels
    assert labels["real_time"] <= {"ns per iteration", "us per iteration"}, labels
