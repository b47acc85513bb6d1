"""Tests for scripts/pmubench/runs/merge.py (ci_compare.sh --rounds)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import time

import pytest
from conftest import PYTHON

from pmubench.runs import benchjson
from pmubench.runs import merge


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


def _gb_run(name="BM_X/8", **fields):
    run = {"name": name, "family_index": 0, "per_family_instance_index": 0,
           "run_name": name, "run_type": "iteration", "repetitions": 1,
           "repetition_index": 0, "threads": 1, "iterations": 100,
           "real_time": 2.0, "cpu_time": 2.0, "time_unit": "ns"}
    run.update(fields)
    return run


def test_merge_accepts_what_compare_accepts(run_tool, tmp_path):
    """One reader for every tool: a run without run_name and a failed run
    with NaN times are fine for compare.py, so merge.py takes them and
    writes strict JSON (issue 22, item 11)."""
    no_run_name = _gb_run()
    del no_run_name["run_name"]
    failed = _gb_run("BM_Y", error_occurred=True, error_message="boom",
                     real_time=float("nan"), cpu_time=float("nan"))
    doc = {"context": {"mhz_per_cpu": float("nan")}, "benchmarks": [no_run_name, failed]}
    one = tmp_path / "one.json"
    one.write_text(json.dumps(doc))   # NaN, as Google Benchmark writes it
    assert run_tool("scripts/compare.py", one, one).returncode in (0, 4)
    out = tmp_path / "merged.json"
    proc = run_tool("scripts/merge.py", out, one, one)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    merged = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict {c}"))
    runs = {(b["run_name"], b["repetition_index"]) for b in merged["benchmarks"]}
    assert runs == {("BM_X/8", 0), ("BM_X/8", 1), ("BM_Y", 0), ("BM_Y", 1)}
    assert merged["context"]["mhz_per_cpu"] is None
    assert benchjson.load(str(out)).runs


@pytest.mark.parametrize("text, field", [
    (json.dumps({"benchmarks": [_gb_run(family_index=-math.inf)]}), '"family_index" is -inf'),
    ('{"benchmarks": [' + json.dumps(_gb_run(real_time=0)).replace(
        '"real_time": 0', '"real_time": ' + "9" * 4301) + "]}",
     'field "real_time" is an integer of 4301 digits'),
], ids=["family_index -Infinity", "4301 digits"])
def test_merge_and_compare_refuse_the_same_files(run_tool, tmp_path, text, field):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    for tool, args in (("scripts/merge.py", (tmp_path / "out.json", bad)),
                       ("scripts/compare.py", (bad, bad))):
        proc = run_tool(tool, *args)
        assert proc.returncode == 2, (tool, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert f"error: {bad}: benchmarks[0] (BM_X/8)" in proc.stderr and field in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_two_registrations_of_one_name_are_numbered_apart():
    # ->Threads(8) and ->ThreadRange(1, 32): one name, two families.
    doc = {"benchmarks": [_gb_run("BM_X/threads:8", family_index=f,
                                  repetition_index=i, repetitions=2)
                          for f in (0, 1) for i in (0, 1)]}
    merged = merge.merge([("a.json", doc), ("b.json", doc)])
    got = [(b["family_index"], b["repetition_index"], b["repetitions"])
           for b in merged["benchmarks"]]
    assert got == [(0, 0, 4), (0, 1, 4), (1, 0, 4), (1, 1, 4),
                   (0, 2, 4), (0, 3, 4), (1, 2, 4), (1, 3, 4)]


def _staging_files(directory):
    return [n for n in os.listdir(directory) if n.startswith(".pmubench-")]


def test_sigterm_while_writing_leaves_no_temp_file(tmp_path, repo_root):
    """A CI timeout's SIGTERM while merge.py writes its output: the temp
    file beside OUT is removed and merge.py exits 143 (issue 22, item 5)."""
    runs = [_gb_run(f"BM_Big/{i}", family_index=i, repetitions=5, repetition_index=r,
                    label="x" * 200, instructions=1000.0 + i)
            for i in range(6000) for r in range(5)]
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"context": {}, "benchmarks": runs}))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for attempt in range(8):
        proc = subprocess.Popen(
            [PYTHON, str(repo_root / "scripts" / "merge.py"), str(out_dir / "m.json"),
             str(big), str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(repo_root / "scripts")})
        seen = False
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if _staging_files(out_dir):
                proc.send_signal(signal.SIGTERM)
                seen = True
                break
        proc.communicate(timeout=120)
        if seen and proc.returncode != 0:
            break
        (out_dir / "m.json").unlink(missing_ok=True)  # finished first: again
    else:
        pytest.skip("merge.py always finished before its temp file was seen")
    assert proc.returncode == 128 + signal.SIGTERM
    assert _staging_files(out_dir) == []
    if (out_dir / "m.json").exists():  # the stop landed after the rename
        assert len(json.loads((out_dir / "m.json").read_text())["benchmarks"]) == 2 * len(runs)
