"""history.py detect and judge as a user sees the spike, --faithful and the
unjudged summary: a one-commit excursion that returns is a change point of
kind "spike" at its commit in detect --format json (none with
--faithful), and judge prints its unjudged series as one line with a
count, the list staying in --format json."""

from __future__ import annotations

import hashlib
import json

from pmubench.history import synthetic
from test_history_sqlite import history

T0 = 1.7e9


def _sha(i: int) -> str:
    return hashlib.sha1(f"spike{i}".encode()).hexdigest()


def _ingest(tmp_path, db: str, commits: int, spike_at: int) -> None:
    for i in range(commits):
        t = 10.0 + (i * 7 % 5) * 0.05 + (6.0 if i == spike_at else 0.0)
        run = synthetic.run(T0 + 3600 * i, {"BM_S": {"real_time": [t, t, t]}},
                            backend="perf_event")
        path = synthetic.write(str(tmp_path / f"{i}.json"), run)
        assert history("ingest", "--db", db, "--commit", _sha(i), "--branch", "main",
                       path).returncode == 0


def test_a_one_commit_regression_fixed_next_is_a_spike_at_its_commit(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest(tmp_path, db, 40, spike_at=25)
    points = json.loads(history("detect", "--db", db, "--format", "json").stdout)
    spikes = [p for p in points["change_points"] if p["metric"] == "real_time"]
    assert [(p["commit"], p["kind"]) for p in spikes] == [(_sha(25), "spike")]
    assert spikes[0]["after"] > 15 and spikes[0]["before"] < 11
    assert {"machine", "benchmark", "metric", "commit", "before", "after", "change",
            "p_value"} <= set(spikes[0])
    text = history("detect", "--db", db).stdout
    assert f"{_sha(25)[:12]} spike (returned)" in text
    faithful = json.loads(history("detect", "--db", db, "--faithful", "--format",
                                  "json").stdout)
    assert all(p["kind"] == "step" for p in faithful["change_points"])


def test_judge_summarises_unjudged_series_in_one_line(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest(tmp_path, db, 8, spike_at=-1)
    head = synthetic.run(T0 + 3600 * 9, {"BM_S": {"real_time": [10.0] * 3},
                                        **{f"BM_new{i}": {"real_time": [1.0] * 3}
                                           for i in range(5)}}, backend="perf_event")
    path = synthetic.write(str(tmp_path / "head.json"), head)
    out = history("judge", "--db", db, path)
    lines = out.stdout.splitlines()
    # 5 new benchmarks x (real_time, cpu_time) have no history; BM_S's two
    # are judged: one line says so, and no line per unjudged series.
    assert len(lines) == 2, out.stdout
    assert "5 of 6 cases have no history on main (new, or renamed: " in lines[1]
    rows = json.loads(history("judge", "--db", db, path, "--format", "json").stdout)["rows"]
    assert sum(r["verdict"] == "unjudged" for r in rows) == 10
