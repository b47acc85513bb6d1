"""history.py keeps heap-allocation counts as exact series (issue 41,
item 6): an allocation more per iteration from one commit on is one change
point at that commit, whatever the timings do, and the rows' allocation
sites (a list, not a metric) do not stop a run from being ingested."""

from __future__ import annotations

import hashlib
import json
import subprocess

from conftest import PYTHON, REPO_ROOT
from pmubench.history import synthetic

HISTORY = str(REPO_ROOT / "scripts" / "history.py")
DAY = 86400.0
T0 = 1.7e9
SITES = "pmubench_profile_alloc_sites_per_iteration"


def _history(*args):
    return subprocess.run([PYTHON, HISTORY, *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def _run(i: int) -> dict:
    allocs = 5.0 if i < 8 else 6.0
    noise = [(i * 7 + r * 3) % 5 * 0.3 for r in range(3)]
    run = synthetic.run(T0 + i * DAY, {"BM_Build": {
        "allocs_per_iter": [allocs] * 3, "alloc_bytes_per_iter": [64 + 17 * (allocs - 5)] * 3,
        "frees_per_iter": [allocs] * 3, "max_bytes_used": [48.0] * 3,
        "real_time": [100.0 + n for n in noise]}}, backend="native")
    for row in run["benchmarks"]:
        row[SITES] = [{"symbol": "Build()", "file": "/src/b.cc", "line": 12,
                       "allocs": allocs, "bytes": 64.0}]
    return run


def test_one_more_allocation_is_one_change_point_at_its_commit(tmp_path):
    db = tmp_path / "h.db"
    for i in range(12):
        path = synthetic.write(str(tmp_path / f"run{i}.json"), _run(i))
        sha = hashlib.sha1(str(i).encode()).hexdigest()
        done = _history("ingest", "--db", db, "--commit", sha, "--branch", "main", path)
        assert done.returncode == 0, done.stderr
    done = _history("detect", "--db", db, "--branch", "main", "--format", "json")
    assert done.returncode == 0, done.stderr
    points = json.loads(done.stdout)["change_points"]
    by_metric = {p["metric"]: p for p in points if p["benchmark"] == "BM_Build"}
    step = by_metric["allocs_per_iter"]
    assert step["commit"] == hashlib.sha1(b"8").hexdigest()
    assert (step["before"], step["after"]) == (5.0, 6.0)
    assert by_metric["alloc_bytes_per_iter"]["commit"] == step["commit"]
    assert "max_bytes_used" not in by_metric and "real_time" not in by_metric
    assert not any(SITES in p["metric"] for p in points)
