"""Tests for joining shards' runs (pmubench.runs.merge.join_shards and
scripts/merge.py --shards): order restored, every case once, bad sets of
files refused naming the file and the fix. The runner's side (that shards
together run the suite, with equal counts) is test_shard_simulate.py."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import PYTHON

from pmubench.runs import benchjson
from pmubench.runs import merge

CASES = ["BM_A", "BM_B/8", "BM_B/64", "BM_C"]


def _run(name, value):
    return {"name": name, "run_name": name, "run_type": "iteration",
            "repetitions": 1, "repetition_index": 0, "threads": 1,
            "iterations": 10, "real_time": 1.0, "cpu_time": 1.0,
            "time_unit": "ns", "callgrind/instructions/": value}


def _shard(index, count, names, cases=CASES):
    return {"context": {"pmubench_backend": "callgrind",
                        "pmubench_shard": f"{index}/{count}",
                        "pmubench_shard_cases": json.dumps(cases)},
            "benchmarks": [_run(n, 100.0 + CASES.index(n)) for n in names]}


def _shards():
    """Round robin over three shards; shard 3 ran BM_B/64 only."""
    return [("s2.json", _shard(2, 3, ["BM_B/8"])),
            ("s1.json", _shard(1, 3, ["BM_A", "BM_C"])),
            ("s3.json", _shard(3, 3, ["BM_B/64"]))]


def test_join_restores_registration_order_and_keeps_each_row():
    joined = merge.join_shards(_shards())
    assert [b["name"] for b in joined["benchmarks"]] == CASES
    assert [b["callgrind/instructions/"] for b in joined["benchmarks"]] == [
        100.0, 101.0, 102.0, 103.0]
    assert "pmubench_shard" not in joined["context"]
    assert joined["context"]["pmubench_backend"] == "callgrind"
    assert joined["context"]["pmubench_joined_shards"] == "3"
    benchjson.parse(joined, "joined")  # what compare.py reads


def test_an_empty_shard_joins_and_gives_no_context_of_its_own():
    docs = [("s1.json", _shard(1, 5, ["BM_A"])),
            ("s5.json", {"context": {"pmubench_shard": "5/5",
                                     "pmubench_shard_cases": json.dumps(CASES)},
                         "benchmarks": []})]
    docs += [(f"s{i}.json", _shard(i, 5, [CASES[i - 1]])) for i in (2, 3, 4)]
    joined = merge.join_shards(docs)
    assert [b["name"] for b in joined["benchmarks"]] == CASES
    assert joined["context"]["pmubench_backend"] == "callgrind"


@pytest.mark.parametrize("docs, message", [
    (_shards()[:2], r"missing \[3\]"),
    (_shards() + [("again.json", _shard(3, 3, ["BM_B/64"]))], r"given twice \[3\]"),
    ([("x.json", {"context": {}, "benchmarks": [_run("BM_A", 1.0)]})],
     r"x.json: not one shard's run.*--pmubench_shard=I/N"),
    (_shards()[:2] + [("other.json", _shard(3, 3, ["BM_C"], CASES[:3]))],
     r"other.json: a shard of another run"),
    (_shards()[:2] + [("dup.json", _shard(3, 3, ["BM_A"]))],
     r"dup.json: BM_A was also run by s1.json"),
])
def test_bad_sets_of_shards_are_refused_naming_the_file(docs, message):
    with pytest.raises(benchjson.BadInput, match=message):
        merge.join_shards(docs)


def test_merge_script_joins_shards_and_exits_2_on_a_missing_one(repo_root, tmp_path):
    paths = []
    for name, doc in _shards():
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(doc))
    out = tmp_path / "joined.json"
    script = str(repo_root / "scripts" / "merge.py")
    ok = subprocess.run([PYTHON, script, "--shards", str(out), *map(str, paths)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert [b["name"] for b in json.loads(out.read_text())["benchmarks"]] == CASES
    out.unlink()
    bad = subprocess.run([PYTHON, script, "--shards", str(out), *map(str, paths[:2])],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "missing [3]" in bad.stderr
    assert not out.exists()
