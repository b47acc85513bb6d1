"""Tests for scripts/pmubench/runs/lazyruns.py: a file of one shape read
without a Run per run, paired from its columns, gives what its Runs give."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from pmubench.runs import benchjson, lazyruns, matching


def _run(name, rep, fam=0, **fields):
    return {"name": name, "family_index": fam, "per_family_instance_index": 0,
            "run_name": name, "run_type": "iteration", "repetitions": 3,
            "repetition_index": rep, "threads": 1, "iterations": 10,
            "real_time": 1.0 + rep + fam, "cpu_time": 2.0 * rep, "time_unit": "ns",
            "instructions": 100.0 + fam, **fields}


def _file(tmp_path, runs, name="one_shape.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"context": {}, "benchmarks": runs}))
    return str(path)


def _suite(tmp_path, name="one_shape.json", **fields):
    names = ["BM_A", "BM_B/repeats:3", "BM_C/8/threads:2"]
    return _file(tmp_path, [_run(n, rep, fam, **fields) for fam, n in enumerate(names)
                            for rep in range(3)], name)


def _made(path):
    """The file as parse reads it: a list of Runs."""
    bench = benchjson.parse(benchjson.read_json(path), path)
    assert type(bench.runs) is list
    return bench


def _groups(groups):
    return {k: (g.name, g.time_unit, list(g.iterations), g.aggregates, g.error,
                g.indexes, g.columns(), g.metric_names())
            for k, g in groups.items()}


def test_a_file_of_one_shape_is_read_without_its_runs(tmp_path):
    path = _suite(tmp_path)
    bench = benchjson.load(path)
    assert isinstance(bench.runs, lazyruns.LazyRuns) and not bench.runs.made
    assert len(bench.runs) == 9 and bench.runs
    assert bench.metric_names() == _made(path).metric_names() == [
        "real_time", "cpu_time", "instructions"]
    assert not bench.has_labels()
    assert not bench.runs.made
    assert bench.runs == _made(path).runs
    assert bench.runs.made


def test_pairing_from_the_columns_is_pairing_from_the_runs(tmp_path):
    base, head = _suite(tmp_path, "base.json"), _suite(tmp_path, "head.json")
    lazy = [benchjson.load(base), benchjson.load(head)]
    pairing = matching.pair(*lazy)
    assert not lazy[0].runs.made and not lazy[1].runs.made
    made = matching.pair(_made(base), _made(head))
    assert [(_groups({0: b}), _groups({0: c})) for b, c in pairing.common] == [
        (_groups({0: b}), _groups({0: c})) for b, c in made.common]
    assert [b.name for b, _ in pairing.common] == ["BM_A", "BM_B", "BM_C/8/threads:2"]
    assert pairing.common[1][0].indexes == [3, 4, 5]
    assert pairing == made


def test_a_stretch_of_runs_is_a_copy_of_its_part_of_the_file(tmp_path):
    bench = benchjson.load(_suite(tmp_path))
    groups = matching.group_runs(bench)
    stretch = groups["BM_B"].iterations
    assert isinstance(stretch, lazyruns.LazyRuns) and len(stretch) == 3
    assert stretch.columns()["real_time"] == [2.0, 3.0, 4.0]
    assert [r.repetition_index for r in reversed(stretch)] == [2, 1, 0]
    assert stretch[0] is bench.runs[3]
    assert stretch.columns() is None     # made: the runs may change now
    stretch.append(bench.runs[0])
    assert len(stretch) == 4 and len(bench.runs) == 9


def test_made_runs_behave_as_the_list_they_are(tmp_path):
    path = _suite(tmp_path)
    bench, made = benchjson.load(path), _made(path).runs
    assert bench.runs[1:3] == made[1:3] and made == bench.runs
    assert bench.runs + [] == made and [] + bench.runs == made
    assert pickle.loads(pickle.dumps(bench)).runs == made
    assert copy.deepcopy(bench) == bench
    assert repr(bench.runs) == repr(made)
    bench.runs[0].label = "changed"
    assert bench.has_labels() and bench.runs[0].label == "changed"
    assert bench.metric_columns() is not None
    bench.runs.append(made[0])
    assert bench.metric_columns() is None and bench.runs[-1] is made[0]


def test_a_run_changed_after_reading_is_paired_as_changed(tmp_path):
    """Once a run is handed out, pairing and names read the runs, not the
    columns (which no longer need describe them)."""
    bench = benchjson.load(_suite(tmp_path))
    bench.runs[4].metrics["extra"] = 1.0
    bench.runs[5].run_name = bench.runs[5].name = "BM_D"
    groups = matching.group_runs(bench)
    assert list(groups) == ["BM_A", "BM_B", "BM_D", "BM_C/8/threads:2"]
    assert "extra" in bench.metric_names()
    assert groups["BM_D"].columns()["real_time"] == [4.0]


def test_labels_and_repeated_names_take_the_runs_way(tmp_path):
    labelled = benchjson.load(_suite(tmp_path, label="x"))
    assert labelled.has_labels() and not labelled.runs.made
    runs = [_run("BM_A", 0), _run("BM_B", 0), _run("BM_A", 1)]
    apart = benchjson.load(_file(tmp_path, runs))
    groups = matching.group_runs(apart)
    assert groups["BM_A"].indexes == [0, 2] and apart.runs.made
    assert _groups(groups) == _groups(matching.group_runs(_made(_file(tmp_path, runs))))


def test_two_files_of_the_same_benchmarks_pair_as_any_two(tmp_path):
    """The pairing of two files holding the same benchmarks (in C) says
    what the general one says: baseline order, a unit that differs, a
    metric only one side has."""
    runs = [_run(n, rep, fam) for fam, n in enumerate(["BM_A", "BM_B"]) for rep in range(2)]
    base = benchjson.load(_file(tmp_path, runs, "base.json"))
    head = benchjson.load(_file(tmp_path, runs[2:] + runs[:2], "head.json"))
    assert [b.name for b, _ in matching.pair(base, head).common] == ["BM_A", "BM_B"]
    other_unit = [dict(r, time_unit="us") if r["name"] == "BM_B" else r for r in runs]
    head = benchjson.load(_file(tmp_path, other_unit, "head.json"))
    with pytest.raises(benchjson.BadInput, match="BM_B is in ns in .* but in us in"):
        matching.pair(base, head)
    head = benchjson.load(_file(tmp_path, [dict(r, cycles=1.0) for r in runs], "head.json"))
    pairing = matching.pair(base, head)
    assert pairing.metrics_only_in_contender == {"cycles": ["BM_A", "BM_B"]}
    assert pairing.metrics_only_in_baseline == {}


def test_every_stretch_asked_for_gives_the_runs_of_the_file(tmp_path):
    """Past lazyruns.RunMaker.MAX_PARTS stretches the rest of the file is
    made at once; the stretches made before and after hold the same Runs
    as the file's list, equal to parse's."""
    count = lazyruns.RunMaker.MAX_PARTS + 6
    path = _file(tmp_path, [_run(f"BM_{i}", rep, i) for i in range(count) for rep in range(2)])
    bench = benchjson.load(path)
    groups = matching.group_runs(bench)
    firsts = [groups[f"BM_{i}"].iterations[1] for i in range(count)]
    assert bench.runs == _made(path).runs
    assert all(first is bench.runs[2 * i + 1] for i, first in enumerate(firsts))
    assert [list(groups[f"BM_{i}"].iterations) for i in range(count)] == [
        bench.runs[2 * i:2 * i + 2] for i in range(count)]


def test_a_stretch_made_after_the_file_list_changed_holds_its_own_runs(tmp_path):
    """As when pairing copied each benchmark's runs: a change to the
    file's list after pairing does not move a benchmark's iterations."""
    bench = benchjson.load(_suite(tmp_path))
    groups = matching.group_runs(bench)
    first = bench.runs[0]
    del bench.runs[:3]
    assert [r.name for r in groups["BM_A"].iterations] == ["BM_A"] * 3
    assert groups["BM_A"].iterations[0] is first
