"""Malformed input to scripts/compare.py and reports/plot.py: every problem
is a BadInput naming the file (exit 2), never a traceback (exit 1 would read
as "regression" in CI). The checks live in one place, pmubench.runs.benchjson."""

from __future__ import annotations

import copy
import json
import math
import random

import pytest

from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.render import (compare_json as render_json,
                             compare_markdown as render_markdown,
                             compare_text as render_text)


def _run(**fields):
    obj = {"name": "BM_X/8", "run_name": "BM_X/8", "run_type": "iteration",
           "repetitions": 1, "repetition_index": 0, "threads": 1,
           "iterations": 100, "real_time": 2.0, "cpu_time": 2.0,
           "time_unit": "ns"}
    obj.update(fields)
    return obj


def _aggregate(**fields):
    obj = _run(name="BM_X/8_mean", run_type="aggregate", aggregate_name="mean",
               aggregate_unit="time")
    del obj["repetition_index"]
    obj.update(fields)
    return obj


_HUGE = "1" + "0" * 400  # an integer literal beyond the range of a double

# (id, file text, words the message must hold)
CASES = [
    ("deep nesting", '{"benchmarks": ' + "[" * 100000 + "]" * 100000 + "}",
     "nested"),
    ("deep nesting in context",
     '{"context": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + ', "benchmarks": []}',
     "nested"),
    ("nesting within the parser's limit, deeper than Google Benchmark's",
     '{"context": {"host_name": ' + "[" * 900 + "]" * 900 + '}, "benchmarks": []}',
     "nested"),
    ("integer beyond float range",
     json.dumps({"benchmarks": [_run(real_time=0)]}).replace(
         '"real_time": 0', '"real_time": ' + _HUGE), "real_time"),
    ("integer of more digits than Python reads (4,300)",
     json.dumps({"benchmarks": [_run(real_time=0)]}).replace(
         '"real_time": 0', '"real_time": ' + "7" * 5000),
     'benchmarks[0] (BM_X/8) field "real_time" is an integer of 5000 digits'),
    ("integer of more digits than Python reads in the context",
     json.dumps({"context": {"caches": [{"size": 0}]}, "benchmarks": [_run()]}).replace(
         '"size": 0', '"size": -' + "7" * 4400),
     'context "caches"[0] "size" is an integer of 4400 digits'),
    ("family_index -Infinity",
     json.dumps({"benchmarks": [_run(family_index=-math.inf)]}), '"family_index" is -inf'),
    ("per_family_instance_index a string",
     {"benchmarks": [_run(per_family_instance_index="0")]}, "per_family_instance_index"),
    ("threads beyond float range",
     json.dumps({"benchmarks": [_run(threads=1)]}).replace(
         '"threads": 1', '"threads": ' + _HUGE), "threads"),
    ("time_unit a list", {"benchmarks": [_run(time_unit=[])]}, "time_unit"),
    ("run_name a number", {"benchmarks": [_run(run_name=5)]}, "run_name"),
    ("name a number", {"benchmarks": [_run(name=5)]}, "name"),
    ("aggregate_name a list",
     {"benchmarks": [_run(), _aggregate(aggregate_name=[3])]}, "aggregate_name"),
    ("aggregate without aggregate_name",
     {"benchmarks": [_run(), {k: v for k, v in _aggregate().items()
                              if k != "aggregate_name"}]}, "aggregate_name"),
    ("negative real_time", {"benchmarks": [_run(real_time=-5.0)]}, "negative"),
    ("negative cpu_time in an aggregate",
     {"benchmarks": [_run(), _aggregate(cpu_time=-1.0)]}, "negative"),
    ("zero threads", {"benchmarks": [_run(threads=0)]}, "threads"),
    ("negative threads", {"benchmarks": [_run(threads=-2)]}, "threads"),
    ("fractional threads", {"benchmarks": [_run(threads=1.5)]}, "integer"),
    ("negative iterations", {"benchmarks": [_run(iterations=-1)]}, "iterations"),
    ("zero repetitions", {"benchmarks": [_run(repetitions=0)]}, "repetitions"),
    ("unknown run_type", {"benchmarks": [_run(run_type="bogus")]}, "run_type"),
    ("run_type a list", {"benchmarks": [_run(run_type=["iteration"])]}, "run_type"),
    ("error_occurred a string", {"benchmarks": [_run(error_occurred="yes")]},
     "error_occurred"),
    ("error_message a list",
     {"benchmarks": [_run(error_occurred=True, error_message=[1])]}, "error_message"),
    ("label an object", {"benchmarks": [_run(label={"a": 1})]}, "label"),
    ("counter a string", {"benchmarks": [_run(instructions="12")]}, "instructions"),
    ("context key a number", {"context": {"pmubench_case_files": 7},
                              "benchmarks": [_run()]}, "pmubench_case_files"),
]


def _write(tmp_path, content) -> str:
    path = tmp_path / "bad.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


@pytest.mark.parametrize("content, problem", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_load_names_file_and_problem(tmp_path, content, problem):
    path = _write(tmp_path, content)
    with pytest.raises(benchjson.BadInput) as e:
        benchjson.load(path)
    assert str(e.value).startswith(path + ":")
    assert problem in str(e.value)


@pytest.mark.parametrize("content, problem", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_compare_exits_2_naming_the_file(tmp_path, run_tool, fixture_path,
                                         content, problem):
    path = _write(tmp_path, content)
    proc = run_tool("scripts/compare.py", fixture_path("compare", "single_base.json"), path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"compare.py: error: {path}:" in proc.stderr and problem in proc.stderr


# plot.py starts matplotlib on each run: a few representative cases suffice,
# since it shares benchjson's checks with compare.py.
_PLOT_CASES = ("deep nesting", "deep nesting in context", "integer beyond float range",
               "integer of more digits than Python reads (4,300)",
               "time_unit a list",
               "run_name a number", "aggregate_name a list", "negative real_time",
               "zero threads", "unknown run_type", "context key a number")


@pytest.mark.parametrize("content, problem",
                         [c[1:] for c in CASES if c[0] in _PLOT_CASES],
                         ids=[c[0] for c in CASES if c[0] in _PLOT_CASES])
def test_plot_exits_2_naming_the_file(tmp_path, run_tool, content, problem):
    path = _write(tmp_path, content)
    proc = run_tool("reports/plot.py", path, "-o", tmp_path / "report")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"plot.py: error: {path}:" in proc.stderr and problem in proc.stderr
    assert not (tmp_path / "report").exists()


_ODD_VALUES = [None, True, 0, -1, 1.5, -2.5, 10**400, "", "x", "ns", "aggregate",
               [], [3], {}, {"a": 1}, "mean", "BigO", "RMS", 1e308]


def _mutated(doc, rng):
    """A copy of doc with 1-3 fields (of runs or the context) set to odd
    values or removed."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.15:
            context = doc.setdefault("context", {})
            key = rng.choice(list(context) + ["caches", "load_avg", "pmubench_case_files"])
            context[key] = rng.choice(_ODD_VALUES)
            continue
        run = rng.choice(doc["benchmarks"])
        key = rng.choice(list(run) + ["aggregate_name", "error_occurred", "label"])
        if rng.random() < 0.1:
            run.pop(key, None)
        else:
            run[key] = rng.choice(_ODD_VALUES)
    return doc


def test_fuzzed_fields_give_bad_input_or_a_comparison(fixture_path):
    """Odd values anywhere in real files end in BadInput or a comparison
    rendered in every format, never in another exception."""
    docs = [json.loads(fixture_path("compare", name).read_text())
            for name in ("single_base.json", "aggregates_base.json",
                         "failed_in_contender.json")]
    rng = random.Random(14)
    outcomes = {"bad input": 0, "compared": 0}
    for _ in range(400):
        base = rng.choice(docs)
        try:
            contender = benchjson.parse(_mutated(base, rng), "contender.json")
            result = comparison.compare(benchjson.parse(base, "base.json"), contender)
        except benchjson.BadInput:
            outcomes["bad input"] += 1
            continue
        render_json.render(result, comparison.exit_code(result))
        render_markdown.render(result)
        render_text.render(result, False)
        outcomes["compared"] += 1
    assert outcomes["bad input"] > 100 and outcomes["compared"] > 50, outcomes
