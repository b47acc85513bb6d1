"""Tests for scripts/pmubench/runs/benchjson.py, the shared Google Benchmark JSON loader."""

from __future__ import annotations

import json
import math

import pytest

from pmubench.runs import benchjson


def _run(**fields):
    obj = {"name": "BM_X/8", "run_name": "BM_X/8", "run_type": "iteration",
           "repetitions": 1, "repetition_index": 0, "threads": 1,
           "iterations": 100, "real_time": 2.0, "cpu_time": 2.0,
           "time_unit": "ns"}
    obj.update(fields)
    return obj


def _write(tmp_path, obj, name="run.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def test_loads_real_file_with_repetitions_and_aggregates(fixture_path):
    bench = benchjson.load(str(fixture_path("compare", "base.json")))
    iterations = [r for r in bench.runs if r.run_type == "iteration"]
    aggregates = {r.aggregate_name for r in bench.runs if r.run_type == "aggregate"}
    assert iterations and {"mean", "median", "stddev", "cv"} <= aggregates
    assert all(r.repetitions > 1 for r in iterations)
    first = iterations[0]
    assert first.metrics["real_time"] > 0 and first.metrics["cpu_time"] > 0
    # Counters are metrics; structural fields are not.
    assert "iterations" not in first.metrics and "time_unit" not in first.metrics
    assert len(first.metrics) > 2
    assert bench.metric_names()[:2] == ["real_time", "cpu_time"]
    assert "num_cpus" in bench.context


def test_cv_of_a_zero_counter_is_dropped_not_an_error(tmp_path):
    # Google Benchmark writes cv = stddev / mean = NaN for a counter that
    # never fired; real files have it (page-faults 0 in every repetition).
    cv = _run(run_type="aggregate", aggregate_name="cv", name="BM_X/8_cv",
              **{"page-faults": float("nan")})
    del cv["repetition_index"]  # aggregates have none
    runs = [_run(**{"page-faults": 0.0}), cv]
    bench = benchjson.load(_write(tmp_path, {"benchmarks": runs}))
    cv = bench.runs[1]
    assert cv.aggregate_name == "cv" and "page-faults" not in cv.metrics
    assert cv.metrics["real_time"] == 2.0


def test_profile_fields_are_not_metrics(tmp_path):
    # --pmubench_profile adds a list and counts of the untimed profiling pass.
    run = _run(**{"page-faults": 4.0,
                  "pmubench_profile": [{"symbol": "F()", "samples": 3, "share": 1.0}],
                  "pmubench_profile_event": "page-faults@1",
                  "pmubench_profile_samples": 3,
                  "pmubench_profile_lost_samples": 0,
                  "pmubench_profile_throttles": 0})
    bench = benchjson.load(_write(tmp_path, {"benchmarks": [run]}))
    assert set(bench.runs[0].metrics) == {"real_time", "cpu_time", "page-faults"}


def test_a_cases_whole_seconds_are_not_a_metric(tmp_path):
    # The runner's scheduling fact for --pmubench_shard_costs: a case that
    # took longer to set up is not slower, so no tool judges it. Many rows,
    # so that the column-at-a-time path reads them too.
    runs = [_run(name=f"BM_X/{i}", run_name=f"BM_X/{i}", pmubench_case_seconds=1.5 + i,
                 **{"instructions": 100.0}) for i in range(64)]
    bench = benchjson.load(_write(tmp_path, {"benchmarks": runs}))
    assert {name for r in bench.runs for name in r.metrics} == {
        "real_time", "cpu_time", "instructions"}
    assert "pmubench_case_seconds" not in bench.metric_names()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_nan_or_inf_in_a_measurement_names_file_run_and_field(tmp_path, value):
    path = _write(tmp_path, {"benchmarks": [_run(real_time=value)]})
    with pytest.raises(benchjson.BadInput) as e:
        benchjson.load(path)
    assert path in str(e.value) and "BM_X/8" in str(e.value)
    assert "real_time" in str(e.value)


def test_nan_in_a_mean_aggregate_is_an_error(tmp_path):
    run = _run(run_type="aggregate", aggregate_name="mean", name="BM_X/8_mean",
               cpu_time=float("nan"))
    with pytest.raises(benchjson.BadInput, match="cpu_time"):
        benchjson.load(_write(tmp_path, {"benchmarks": [run]}))


@pytest.mark.parametrize("content, problem", [
    ("", "is empty"),
    ("   \n", "is empty"),
    ("BM_X 2 ns", "not valid JSON"),
    ('{"benchmarks": [', "not valid JSON"),
    ("[1, 2]", "not Google Benchmark JSON"),
    ('{"results": []}', "not Google Benchmark JSON"),
    ('{"benchmarks": {}}', "is not a list"),
    ('{"benchmarks": []}', "holds no benchmark runs"),
    ('{"benchmarks": [3]}', "is not an object"),
    ('{"benchmarks": [{"name": "BM_X"}]}', "has no \"run_type\""),
    ('{"context": [], "benchmarks": [{"name": "a", "run_type": "iteration", '
     '"time_unit": "ns"}]}', "\"context\" is not an object"),
])
def test_bad_content_names_the_file_and_the_problem(tmp_path, content, problem):
    path = _write(tmp_path, content)
    with pytest.raises(benchjson.BadInput) as e:
        benchjson.load(path)
    assert str(e.value).startswith(path + ":")
    assert problem in str(e.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(benchjson.BadInput, match="no such file"):
        benchjson.load(str(tmp_path / "absent.json"))
    with pytest.raises(benchjson.BadInput, match="is a directory"):
        benchjson.load(str(tmp_path))


def test_unknown_time_unit_and_non_numeric_field(tmp_path):
    with pytest.raises(benchjson.BadInput, match="unknown time_unit 'fortnights'"):
        benchjson.load(_write(tmp_path, {"benchmarks": [_run(time_unit="fortnights")]}))
    with pytest.raises(benchjson.BadInput, match="\"instructions\" is not a number"):
        benchjson.load(_write(tmp_path, {"benchmarks": [_run(instructions="12")]}))
    with pytest.raises(benchjson.BadInput, match="is not a number"):
        benchjson.load(_write(tmp_path, {"benchmarks": [_run(instructions=True)]}))
    with pytest.raises(benchjson.BadInput, match="\"repetitions\" is not a number"):
        benchjson.load(_write(tmp_path, {"benchmarks": [_run(repetitions="five")]}))


def test_failed_run_has_its_message_and_no_metrics(tmp_path):
    run = {"name": "BM_E", "run_name": "BM_E", "run_type": "iteration",
           "error_occurred": True, "error_message": "boom"}
    bench = benchjson.load(_write(tmp_path, {"benchmarks": [run, _run()]}))
    assert bench.runs[0].failed and bench.runs[0].error_message == "boom"
    assert bench.runs[0].metrics == {}
    assert not bench.runs[1].failed


def test_names_directions_and_units():
    assert benchjson.family_of("BM_Chase/4096/threads:2") == "BM_Chase"
    assert benchjson.args_of("BM_Chase/4096/8/threads:2") == [("", "4096"), ("", "8")]
    assert benchjson.args_of("BM_Map/size:64/real_time") == [("size", "64")]
    assert benchjson.args_of("BM_X/repeats:5/min_time:0.010") == []
    for metric in ("IPC", "items_per_second", "bytes_per_second"):
        assert benchjson.is_higher_better(metric)
    for metric in ("real_time", "instructions", "L1-dcache-load-misses", "msr/tsc/"):
        assert not benchjson.is_higher_better(metric)
    assert benchjson.is_derived("branch-miss-ratio") and benchjson.is_derived("IPC")
    assert not benchjson.is_derived("instructions")
    assert benchjson.to_ns(2.5, "us") == 2500.0
    assert math.isclose(benchjson.to_ns(3, "s"), 3e9)


def test_load_gives_what_parse_gives_on_every_fixture(fixture_path):
    """load checks a file of the common shape in one pass
    (_parse_common); it must read every file as parse(read_json) does,
    and take that pass on the suite's own files."""
    import glob
    fast = 0
    for path in sorted(glob.glob(str(fixture_path("compare")) + "/*.json")
                       + glob.glob(str(fixture_path("allocations")) + "/*.json")
                       + glob.glob(str(fixture_path("complexity")) + "/*.json")):
        try:
            expected = benchjson.parse(benchjson.read_json(path), path)
        except benchjson.BadInput as e:
            with pytest.raises(benchjson.BadInput) as raised:
                benchjson.load(path)
            assert str(raised.value) == str(e)
            continue
        assert benchjson.load(path) == expected, path
        fast += benchjson._parse_common(benchjson.read_json(path), path) is not None
    assert fast >= 10


@pytest.mark.parametrize("stretch", [benchjson._STRETCH, 3])
def test_runs_checked_a_column_at_a_time_are_the_runs_checked_one_by_one(monkeypatch, stretch):
    """_common_runs (the runs of one shape checked per column) gives what
    _common_run gives run by run: the same Runs, in file order, over
    several shapes and every value the column path leaves to _common_run
    (an int metric, a NaN cv, a negative time, a flag, a failed run, a
    complexity fit, a bad label, a list), or None where that gives None;
    with the columns read a few runs at a time as well (stretch)."""
    monkeypatch.setattr(benchjson, "_STRETCH", stretch)
    base = {"name": "BM_A/1", "run_name": "BM_A/1", "run_type": "iteration",
            "repetitions": 3, "repetition_index": 0, "threads": 1,
            "iterations": 10, "real_time": 2.5, "cpu_time": 2.0,
            "time_unit": "ns", "instructions": 100.0}
    aggregate = dict(base, run_type="aggregate", aggregate_name="cv",
                     repetition_index=-1, name="BM_A/1_cv")
    variants = [
        {}, {"instructions": 7}, {"family_index": 2, "per_family_instance_index": 0},
        {"label": "x"}, {"iterations": 2.5}, {"real_time": -1.0}, {"threads": 0},
        {"label": 3}, {"time_unit": "fortnights"}, {"pmubench_layout_sensitive": True},
        {"error_occurred": True, "error_message": "boom"}, {"instructions": [1.0]},
        {"family_index": -1}, {"repetitions": True}, {"instructions": float("inf")},
        # Finite values whose sum overflows (the column's quick check), and
        # infinities of both signs in one column (their sum is NaN).
        {"instructions": 1.7e308}, {"real_time": float("-inf")},
        # Iterations of each kind the column checks tell apart, and run
        # types and units that are not strings (a list: no set of them).
        {"iterations": -1}, {"iterations": 10 ** 301}, {"iterations": float("nan")},
        {"iterations": True}, {"run_type": ["iteration"]}, {"time_unit": 1},
        {"time_unit": {"ns": 1}},
    ]
    files = [[dict(base, **v)] * 2 + [dict(base, name="BM_B")] for v in variants]
    files.append([dict(base, instructions=float("inf")), dict(base, instructions=-float("inf"))])
    files.append([base, aggregate, dict(aggregate, instructions=float("nan"))])
    files.append([base, dict(aggregate, aggregate_name="BigO")])
    # The same keys in another order: another shape.
    files.append([base, dict(reversed(base.items())), base])
    files.append([dict(base, name=f"BM_{i}", real_time=float(i)) for i in range(50)]
                 + [dict(base, **v) for v in variants[:5]])
    # Each variant after runs of the common shape, in a later stretch.
    files += [[dict(base, name=f"BM_{i}") for i in range(7)] + [dict(base, **v)]
              for v in variants]
    files.append([dict(base, name=f"BM_{i}") for i in range(7)] + [dict(base, threads=True)])
    for runs in files:
        one_by_one = []
        for run in runs:
            try:
                one_by_one.append(benchjson._common_run(run, "f.json"))
            except benchjson.BadInput:
                one_by_one = "raised"
                break
        try:
            columns = benchjson._common_runs(runs, "f.json")
        except benchjson.BadInput:
            columns = "raised"
        assert columns == one_by_one, runs
        if columns != "raised":
            assert [r.raw if r else None for r in columns] == [
                r.raw if r else None for r in one_by_one]
            # == takes 10 for 10.0 and True for 1: the reprs say the types.
            assert repr(columns) == repr(one_by_one)
            assert all(type(r.iterations) is float for r in columns if r)


@pytest.mark.parametrize("text", ["", "\n", " \t\r\n", "\u2003\x1c\n"])
def test_an_empty_file_is_named_as_empty(tmp_path, text):
    path = tmp_path / "empty.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(benchjson.BadInput, match="is empty; was the benchmark run interrupted"):
        benchjson.load(str(path))
    with pytest.raises(benchjson.BadInput, match="is empty"):
        benchjson.read_json(str(path))


def test_whitespace_around_a_file_is_read_past(tmp_path):
    path = tmp_path / "spaced.json"
    run = {"name": "BM_A", "run_type": "iteration", "time_unit": "ns",
           "real_time": 1.0, "cpu_time": 1.0, "iterations": 1}
    path.write_text("\n\t " + json.dumps({"benchmarks": [run]}) + " \n\n", encoding="utf-8")
    assert [r.name for r in benchjson.load(str(path)).runs] == ["BM_A"]


@pytest.mark.parametrize("count", [1, 3, 10])
def test_columns_read_a_stretch_of_runs_at_a_time_hold_every_run(monkeypatch, count):
    """_value_columns reads 3 runs at a time here: every run's values, in
    order, in the columns and the Runs made from them."""
    monkeypatch.setattr(benchjson, "_STRETCH", 3)
    runs = [{"name": f"BM_{i}", "run_name": f"BM_{i}", "run_type": "iteration",
             "repetitions": 3, "repetition_index": i % 3, "threads": 1 + i,
             "iterations": 10 + i, "real_time": 2.5 + i, "cpu_time": 2.0 * i,
             "time_unit": "ns", "instructions": 100.0 - i} for i in range(count)]
    bench = benchjson._parse_common({"benchmarks": runs}, "f.json")
    assert bench.metric_columns() == {
        key: [run[key] for run in runs] for key in ("real_time", "cpu_time", "instructions")}
    assert [(r.name, r.repetition_index, r.threads, r.iterations) for r in bench.runs] == [
        (run["name"], run["repetition_index"], run["threads"], float(run["iterations"]))
        for run in runs]
