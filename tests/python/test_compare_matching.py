"""Tests for scripts/pmubench/runs/matching.py: pairing two files' runs."""

from __future__ import annotations

import json
import random

import pytest

from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.runs import matching, merge


def _iteration(name, rep, reps, unit="ns", **metrics):
    return {"name": name, "run_name": name, "run_type": "iteration",
            "repetitions": reps, "repetition_index": rep, "threads": 1,
            "iterations": 10, "real_time": 1.0 + rep, "cpu_time": 1.0 + rep,
            "time_unit": unit, **metrics}


def _aggregate(name, agg, unit="ns", **metrics):
    return {"name": f"{name}_{agg}", "run_name": name, "run_type": "aggregate",
            "repetitions": 3, "threads": 1, "aggregate_name": agg,
            "iterations": 3, "real_time": 7.0 if agg == "median" else 8.0,
            "cpu_time": 7.0, "time_unit": unit, **metrics}


def _file(path, runs):
    return benchjson.parse({"context": {}, "benchmarks": runs}, path)


def test_match_key_drops_repeats_only():
    assert matching.match_key("BM_X/8/repeats:5") == "BM_X/8"
    assert matching.match_key("BM_X/repeats:5/threads:2") == "BM_X/threads:2"
    assert matching.match_key("BM_X/repeats_total:5") == "BM_X/repeats_total:5"


def test_sample_prefers_repetitions_then_median_then_mean_then_single():
    reps = matching.group_runs(_file("a", [
        _iteration("BM_A", i, 3) for i in range(3)] + [_aggregate("BM_A", "median")]))
    sample = reps["BM_A"].sample("real_time")
    assert sample.source == matching.REPETITIONS and sample.values == [1.0, 2.0, 3.0]

    aggs = matching.group_runs(_file("a", [
        _aggregate("BM_A", a) for a in ("mean", "median", "stddev", "cv")]))
    sample = aggs["BM_A"].sample("real_time")
    assert sample.source == matching.MEDIAN_AGGREGATE and sample.values == [7.0]
    mean_only = matching.group_runs(_file("a", [_aggregate("BM_A", "mean")]))
    assert mean_only["BM_A"].sample("real_time").source == matching.MEAN_AGGREGATE

    single = matching.group_runs(_file("a", [_iteration("BM_A", 0, 1)]))
    sample = single["BM_A"].sample("real_time")
    assert sample.source == matching.SINGLE_RUN and sample.values == [1.0]
    assert single["BM_A"].sample("instructions") is None


def test_repetition_counts_may_differ_between_files():
    base = _file("b.json", [_iteration("BM_A/repeats:3", i, 3) for i in range(3)])
    cont = _file("c.json", [_iteration("BM_A/repeats:5", i, 5) for i in range(5)])
    pairing = matching.pair(base, cont)
    ((b, c),) = pairing.common
    assert len(b.sample("real_time").values) == 3
    assert len(c.sample("real_time").values) == 5


def test_missing_extra_failed_and_one_sided_metrics():
    base = _file("b.json", [
        _iteration("BM_A", 0, 1, instructions=5.0, **{"L1-dcache-load-misses": 1.0}),
        _iteration("BM_Gone", 0, 1),
        {"name": "BM_Err", "run_name": "BM_Err", "run_type": "iteration",
         "error_occurred": True, "error_message": "no memory"}])
    cont = _file("c.json", [
        _iteration("BM_A", 0, 1, instructions=5.0, cycles=9.0),
        _iteration("BM_New", 0, 1),
        _iteration("BM_Err", 0, 1)])
    p = matching.pair(base, cont)
    assert [b.name for b, _ in p.common] == ["BM_A"]
    assert p.only_in_baseline == ["BM_Gone"]
    assert p.only_in_contender == ["BM_New"]
    assert p.failed == [("BM_Err", "baseline", "no memory")]
    assert p.metrics_only_in_baseline == {"L1-dcache-load-misses": ["BM_A"]}
    assert p.metrics_only_in_contender == {"cycles": ["BM_A"]}


def test_different_time_units_name_both_files():
    base = _file("b.json", [_iteration("BM_A", 0, 1, unit="ns")])
    cont = _file("c.json", [_iteration("BM_A", 0, 1, unit="us")])
    with pytest.raises(benchjson.BadInput) as e:
        matching.pair(base, cont)
    message = str(e.value)
    assert "BM_A" in message and "b.json" in message and "c.json" in message
    assert "ns" in message and "us" in message


def test_no_common_benchmark_is_bad_input():
    base = _file("b.json", [_iteration("BM_A", 0, 1)])
    cont = _file("c.json", [_iteration("BM_B", 0, 1)])
    with pytest.raises(benchjson.BadInput, match="no benchmark in common"):
        matching.pair(base, cont)


def test_stddev_and_cv_metrics_do_not_count_as_measured():
    # A metric that appears only in spread aggregates is not a sample.
    runs = matching.group_runs(_file("a", [
        _aggregate("BM_A", "median"), _aggregate("BM_A", "stddev", extra=1.0)]))
    assert "extra" not in runs["BM_A"].metric_names()


def _registered(name, family, instance, values):
    return [{"name": name, "family_index": family, "per_family_instance_index": instance,
             "run_name": name, "run_type": "iteration", "repetitions": len(values),
             "repetition_index": i, "threads": 8, "iterations": 100,
             "real_time": v, "cpu_time": v, "time_unit": "ns", "instructions": v}
            for i, v in enumerate(values)]


def test_two_registrations_of_one_name_are_kept_apart():
    # BENCHMARK(BM_X)->Threads(8); BENCHMARK(BM_X)->ThreadRange(1, 32): both
    # write BM_X/threads:8 (issue 23, item 11). The second is 10x slower.
    def doc(first, second):
        return {"context": {}, "benchmarks": _registered("BM_X/threads:8", 0, 0, first)
                + _registered("BM_X/threads:1", 1, 0, [5.0] * 5)
                + _registered("BM_X/threads:8", 1, 3, second)}
    base = benchjson.parse(doc([10.0] * 5, [100.0] * 5), "base.json")
    # The contender's families are numbered differently (one was added
    # before them): the order of the names still pairs them up.
    head_doc = doc([10.0] * 5, [110.0] * 5)
    for run in head_doc["benchmarks"]:
        run["family_index"] += 4
    head = benchjson.parse(head_doc, "head.json")
    result = comparison.compare(base, head)
    rows = {r.benchmark: r for r in result.rows if r.metric == "instructions"}
    assert set(rows) == {"BM_X/threads:8", "BM_X/threads:8#2", "BM_X/threads:1"}
    assert rows["BM_X/threads:8"].baseline.n == 5
    assert rows["BM_X/threads:8"].change == 0
    assert rows["BM_X/threads:8#2"].change == pytest.approx(0.1)
    assert rows["BM_X/threads:8#2"].verdict == comparison.REGRESSION
    (note,) = [n for n in result.notes if "registrations" in n]
    assert "2 registrations write runs named BM_X/threads:8 in base.json and head.json" in note
    assert "compared apart as BM_X/threads:8, BM_X/threads:8#2" in note
    # Repetitions of one registration (merged rounds too) stay pooled.
    merged = benchjson.parse(merge.merge([("a", doc([10.0] * 5, [100.0] * 5))] * 2), "m")
    rows = {r.benchmark: r for r in comparison.compare(merged, merged).rows
            if r.metric == "instructions"}
    assert rows["BM_X/threads:8"].baseline.n == 10 and rows["BM_X/threads:8#2"].baseline.n == 10


def _one_shape_file(tmp_path, order):
    runs = [{"name": name, "family_index": fam, "per_family_instance_index": 0,
             "run_name": name, "run_type": "iteration", "repetitions": 3,
             "repetition_index": i, "threads": 1, "iterations": 10,
             "real_time": 1.0 + i, "cpu_time": 1.0, "time_unit": "ns"}
            for i, (name, fam) in enumerate(order)]
    path = tmp_path / "one_shape.json"
    path.write_text(json.dumps({"context": {}, "benchmarks": runs}))
    return benchjson.load(str(path))


def test_a_file_of_one_shape_groups_by_stretches_as_run_by_run(tmp_path):
    """Runs of a name next to each other, apart (interleaved), two
    registrations of one name and a /repeats: name: the groups made a
    stretch at a time are the groups made run by run."""
    order = [("BM_A", 0), ("BM_A", 0), ("BM_B/repeats:3", 1), ("BM_A", 0),
             ("BM_B", 1), ("BM_A", 2), ("BM_A", 2), ("BM_C", 3)]
    bench = _one_shape_file(tmp_path, order)
    assert bench.metric_columns() is not None
    regs_fast: dict = {}
    fast = matching.group_runs(bench, regs_fast)
    bench.shared_columns = None
    regs_slow: dict = {}
    slow = matching.group_runs(bench, regs_slow)
    assert list(fast) == list(slow) == ["BM_A", "BM_B", "BM_A#2", "BM_C"]
    assert regs_fast == regs_slow == {"BM_A": [(0, 0), (2, 0)]}
    for key in fast:
        assert fast[key].iterations == slow[key].iterations
        assert fast[key].indexes == slow[key].indexes
    assert fast["BM_A"].indexes == [0, 1, 3]


def test_a_file_of_one_shape_refuses_two_time_units_in_a_benchmark(tmp_path):
    bench = _one_shape_file(tmp_path, [("BM_A", 0), ("BM_B", 1), ("BM_A", 0)])
    bench.runs[2].time_unit = "us"
    assert bench.metric_columns() is not None
    with pytest.raises(benchjson.BadInput, match="BM_A has runs in both ns and us"):
        matching.group_runs(bench)


def test_stretches_start_wherever_a_name_registration_or_unit_changes():
    """_stretch_starts gives each index whose run differs from the one
    before in any column, as one look at every column would: a change of
    name alone, of a registration or a unit inside a name's stretch, a
    column of one value, one run."""
    names = ["A", "A", "A", "B", "B", "C", "C"]
    families = [0, 0, 1, 1, 1, 2, 2]
    units = ["ns", "ns", "ns", "ns", "us", "us", "us"]
    assert matching._stretch_starts(names, ([0] * 7, (None,) * 7, ["ns"] * 7)) == [0, 3, 5]
    assert matching._stretch_starts(names, (families, [0] * 7, ["ns"] * 7)) == [0, 2, 3, 5]
    assert matching._stretch_starts(names, ([0, 0, 0, 1, 1, 300, 300], [0] * 7, units[::-1])) == [
        0, 3, 5]
    assert matching._stretch_starts(names, (families, [0] * 7, units)) == [0, 2, 3, 4, 5]
    assert matching._stretch_starts(["A"], ([0], [0], ["ns"])) == [0]
    rng = random.Random(7)
    for _ in range(300):
        count = rng.randint(1, 12)
        columns = [[rng.choice("ab") for _ in range(count)] for _ in range(4)]
        if rng.random() < 0.5:   # the other columns change only with the name
            columns[1] = [c + "x" for c in columns[0]]
        expected = [0] + [i for i in range(1, count)
                          if any(c[i] != c[i - 1] for c in columns)]
        assert matching._stretch_starts(columns[0], tuple(columns[1:])) == expected


def _suite_runs(seed: int, interleaved: bool) -> list[dict]:
    """Six benchmarks x 5 repetitions of one shape, each benchmark's
    repetitions together or, as --benchmark_enable_random_interleaving
    writes them, one repetition of every benchmark after another."""
    rng = random.Random(seed)
    runs = {(b, rep): _iteration(f"BM_S/{b}", rep, 5, instructions=100.0 + b,
                                 real_time=rng.uniform(10, 11), cpu_time=rng.uniform(10, 11))
            for b in range(6) for rep in range(5)}
    order = ([(b, rep) for rep in range(5) for b in range(6)] if interleaved
             else [(b, rep) for b in range(6) for rep in range(5)])
    return [runs[key] for key in order]


def test_interleaved_repetitions_are_judged_as_stretches_are(tmp_path):
    """The column path takes a benchmark's repetitions wherever they are in
    the file: interleaved ones give the rows that stretches give."""
    rows = {}
    for interleaved in (False, True):
        files = []
        for side, seed in (("base", 1), ("head", 2)):
            path = tmp_path / f"{side}-{interleaved}.json"
            path.write_text(json.dumps({"context": {},
                                        "benchmarks": _suite_runs(seed, interleaved)}))
            files.append(benchjson.load(str(path)))
        assert all(f.metric_columns() is not None for f in files)
        rows[interleaved] = comparison.compare(*files).rows
    assert rows[True] == rows[False]
    assert len(rows[True]) == 18
