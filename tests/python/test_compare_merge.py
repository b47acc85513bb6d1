"""Tests for scripts/pmubench/compare/merge.py (ci_compare.sh --rounds)."""

from __future__ import annotations

import json

import pytest

from pmubench import benchjson
from pmubench.compare import merge


def _doc(path):
    with open(path, encoding="utf-8") as f:
        return str(path), json.load(f)


def test_merge_keeps_every_repetition_renumbered(fixture_path):
    base = _doc(fixture_path("compare", "base.json"))
    rerun = _doc(fixture_path("compare", "rerun.json"))
    merged = merge.merge([base, rerun])
    runs = benchjson.parse(merged, "merged").runs
    assert all(r.run_type == "iteration" for r in runs)      # aggregates dropped
    per_name: dict[str, list[int]] = {}
    for r in runs:
        per_name.setdefault(r.run_name, []).append(r.repetition_index)
    reps_each = sum(b["run_type"] == "iteration" and b["run_name"] == runs[0].run_name
                    for b in base[1]["benchmarks"])
    for name, indexes in per_name.items():
        assert indexes == list(range(2 * reps_each)), name
    assert {r.repetitions for r in runs} == {2 * reps_each}
    # The second half of each benchmark is the rerun's values, in order.
    first = runs[0].run_name
    rerun_times = [b["real_time"] for b in rerun[1]["benchmarks"]
                   if b["run_name"] == first and b["run_type"] == "iteration"]
    merged_times = [r.metrics["real_time"] for r in runs if r.run_name == first]
    assert merged_times[reps_each:] == rerun_times
    assert merged["context"]["pmubench_merged_files"] == "2"


def test_merge_rejects_aggregates_only_and_bad_files(fixture_path, tmp_path):
    with pytest.raises(benchjson.BadInput, match="holds only aggregates"):
        merge.merge([_doc(fixture_path("compare", "aggregates_base.json"))])
    with pytest.raises(benchjson.BadInput, match="nan.json"):
        merge.merge([_doc(fixture_path("compare", "nan.json"))])


def test_merge_command_line(run_tool, fixture_path, tmp_path):
    out = tmp_path / "merged.json"
    proc = run_tool("scripts/merge.py", out,
                    fixture_path("compare", "base.json"),
                    fixture_path("compare", "rerun.json"))
    assert proc.returncode == 0, proc.stderr
    assert benchjson.load(str(out)).runs
    bad = run_tool("scripts/merge.py", out, fixture_path("compare", "not_json.json"))
    assert bad.returncode == 2 and "not_json.json" in bad.stderr
    assert run_tool("scripts/merge.py", out).returncode == 2
