"""history.py compact on real SQLite files and a private PostgreSQL
cluster: runs older than the newest N commits keep their median per
series; detect finds the same change points and judge gives the same rows
after it; an exact count that wobbles stays noisy; a second compaction
changes nothing and says so; the file shrinks; bad input changes nothing;
a compaction killed mid-way leaves the history as it was; the CI recipe's
store says how many fewer values a compacted history keeps."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess

from conftest import PYTHON, REPO_ROOT
from pmubench.history import synthetic
from test_history_sqlite import VALUES, history, kill_mid_write
from test_history_branch import ingest as branch_ingest, place, record, runs_on_branch  # noqa: F401
from test_history_branch import tool as branch_tool
from test_history_postgres import cluster  # noqa: F401 (a private PostgreSQL cluster)

T0 = 1.7e9
COMMITS, KEEP, REPS = 30, 10, 5


def _sha(i: int) -> str:
    return hashlib.sha1(f"compact{i}".encode()).hexdigest()


def _values(i: int) -> dict:
    """BM_A: an exact count stepping at 8 and 20 (+1 at 20), a time
    stepping +30% at 12; BM_W: an instruction count that wobbles between
    repetitions (a PMU's), so its series is a noisy one."""
    wobble = [(i * 7 + r * 3) % 5 * 0.01 for r in range(REPS)]
    count = 1000.0 + (100 if i >= 8 else 0) + (1 if i >= 20 else 0)
    return {"BM_A": {"instructions": [count] * REPS,
                     "real_time": [(13.0 if i >= 12 else 10.0) + w for w in wobble]},
            "BM_W": {"instructions": [5000.0 + 40 * w + (300 if i >= 15 else 0)
                                      for w in wobble]}}


def _history(tmp_path, db: str | None = None) -> str:
    db = db or str(tmp_path / "h.db")
    for i in range(COMMITS):
        path = synthetic.write(str(tmp_path / f"{i}.json"), synthetic.run(
            T0 + 3600 * i, _values(i), backend="perf_event"))
        done = history("ingest", "--db", db, "--commit", _sha(i), "--branch", "main", path)
        assert done.returncode == 0, done.stderr
    return db


def _points(db: str) -> tuple[list, int]:
    done = history("detect", "--db", db, "--format", "json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    return ([(p["benchmark"], p["metric"], p["commit"], p["kind"], p["before"], p["after"],
              p["p_value"]) for p in doc["change_points"]], doc["recomputed"])


def _per_run(db: str) -> dict:
    """(commit index, benchmark, metric) -> how many values it keeps."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "select r.commit_sha, s.benchmark, s.metric, length(v.packed) / 8 from samples v "
            "join runs r on r.id = v.run_id join series s on s.id = v.series_id").fetchall()
    index = {_sha(i): i for i in range(COMMITS)}
    return {(index[c], b, m): n for c, b, m, n in rows}


def _judged(db: str, tmp_path) -> list:
    head = synthetic.run(T0 + 3600 * COMMITS, _values(COMMITS - 1), backend="perf_event")
    path = synthetic.write(str(tmp_path / "head.json"), head)
    done = history("judge", "--db", db, "--format", "json", path)
    return [done.returncode, json.loads(done.stdout)["rows"]]


def test_compaction_keeps_what_detect_and_judge_see(tmp_path):
    db = _history(tmp_path)
    before, _ = _points(db)
    judged = _judged(db, tmp_path)
    # both steps of the exact count, the time's, and BM_W's as a noisy series (a p-value)
    assert [(p[2], p[6] is None) for p in before if p[:2] == ("BM_A", "instructions")] == [
        (_sha(20), True), (_sha(8), True)]
    assert [(p[2], p[6] is None) for p in before if p[0] == "BM_W"] == [(_sha(15), False)]
    size = (tmp_path / "h.db").stat().st_size
    done = history("compact", "--db", db, "--keep-commits", KEEP)
    assert done.returncode == 0, done.stderr
    old = COMMITS - KEEP
    assert f"compacted {old} runs at {old} commits older than the newest {KEEP}" in done.stdout
    assert f"({old} on main)" in done.stdout
    kept = _per_run(db)
    for i in range(COMMITS):
        # the newest KEEP commits keep every repetition; an older exact
        # count one value, an older time its median, the wobbling count
        # its smallest, median and largest
        assert kept[(i, "BM_A", "instructions")] == (REPS if i >= old else 1)
        assert kept[(i, "BM_A", "real_time")] == (REPS if i >= old else 1)
        assert kept[(i, "BM_W", "instructions")] == (REPS if i >= old else 3)
    # 6 series (each benchmark's cpu_time and real_time too) of REPS
    # values a commit; an old run keeps 1 of each but BM_W's count's 3
    total = 6 * REPS * COMMITS
    after_values = total - old * (5 * (REPS - 1) + (REPS - 3))
    assert f"values {total:,} -> {after_values:,}" in done.stdout
    assert (tmp_path / "h.db").stat().st_size < size
    # every reduced commit has one run: no point moved, the cache stands
    assert "detect recomputes" not in done.stdout
    assert _points(db) == (before, 0)
    # and detection from scratch on the compacted values finds the same
    with sqlite3.connect(db) as conn:
        conn.execute("delete from detect_cache")
        conn.execute("delete from detected_runs")
    assert _points(db) == (before, 6)
    assert _judged(db, tmp_path) == judged


def test_a_commit_of_several_runs_makes_detect_recompute(tmp_path):
    db = _history(tmp_path)
    again = synthetic.write(str(tmp_path / "again.json"), synthetic.run(
        T0 + 3600 * 2 + 60, _values(2), backend="perf_event"))
    assert history("ingest", "--db", db, "--commit", _sha(2), "--branch", "main",
                   again).returncode == 0
    before, _ = _points(db)
    done = history("compact", "--db", db, "--keep-commits", KEEP)
    assert f"compacted {COMMITS - KEEP + 1} runs at {COMMITS - KEEP} commits" in done.stdout
    assert "detect recomputes every series" in done.stdout
    # the second run of commit 2 holds the same values: its medians stand
    assert _points(db) == (before, 6)


def test_a_second_compaction_changes_nothing_and_says_so(tmp_path):
    db = _history(tmp_path)
    assert history("compact", "--db", db, "--keep-commits", KEEP).returncode == 0
    digest = hashlib.sha256((tmp_path / "h.db").read_bytes()).hexdigest()
    again = history("compact", "--db", db, "--keep-commits", KEEP)
    assert again.returncode == 0, again.stderr
    assert "nothing to compact" in again.stdout
    assert hashlib.sha256((tmp_path / "h.db").read_bytes()).hexdigest() == digest
    # a smaller N compacts the next commits only
    fewer = history("compact", "--db", db, "--keep-commits", KEEP - 4)
    assert "compacted 4 runs at 4 commits" in fewer.stdout


def test_bad_keep_commits_changes_nothing(tmp_path):
    db = _history(tmp_path)
    digest = hashlib.sha256((tmp_path / "h.db").read_bytes()).hexdigest()
    done = history("compact", "--db", db, "--keep-commits", "-1")
    assert done.returncode == 2 and "--keep-commits -1: must be 0 or more" in done.stderr
    missing = history("compact", "--db", str(tmp_path / "none.db"), "--keep-commits", "3")
    assert missing.returncode == 2 and not (tmp_path / "none.db").exists()
    assert hashlib.sha256((tmp_path / "h.db").read_bytes()).hexdigest() == digest


def test_killed_compaction_leaves_the_history_as_it_was(tmp_path):
    """SIGKILL while the compaction's transaction writes (its rollback
    journal exists): the history holds every value, or the compacted ones."""
    db = str(tmp_path / "h.db")
    big = {f"BM_{b}": {"real_time": [1.0 + r for r in range(20)]} for b in range(1500)}
    for i in range(3):
        path = synthetic.write(str(tmp_path / f"big{i}.json"),
                               synthetic.run(T0 + 3600 * i, big, backend="perf_event"))
        assert history("ingest", "--db", db, "--commit", _sha(i), "--branch", "main",
                       path).returncode == 0
    full, compacted = 3 * 1500 * 40, 1500 * 40 + 2 * 1500 * 2
    killed_mid_write = 0
    for extra in (0.0, 0.05, 0.3):
        killed_mid_write += kill_mid_write(["compact", "--db", db, "--keep-commits", "1"],
                                           db, extra)
        with sqlite3.connect(db) as conn:
            values = conn.execute(VALUES).fetchone()[0]
        assert values in (full, compacted)
        if values == compacted:
            break
    assert killed_mid_write >= 1
    done = history("compact", "--db", db, "--keep-commits", "1")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute(VALUES).fetchone() == (compacted,)


def test_the_branch_store_says_a_compacted_history_has_fewer_values(place):
    for i in range(4):
        assert record(place, i).returncode == 0
    job = place["tmp"] / "compacting"
    job.mkdir()
    db = job / "history.db"
    assert branch_tool("fetch", "--remote", place["remote"], "--db", str(db),
                       cwd=place["work"]).returncode == 0
    branch_ingest(place, db, 4)
    done = history("compact", "--db", db, "--keep-commits", 2)
    assert "compacted 3 runs at 3 commits" in done.stdout, done.stdout + done.stderr
    stored = branch_tool("store", "--remote", place["remote"], "--db", str(db), "-m", "x",
                         cwd=place["work"])
    assert stored.returncode == 0, stored.stderr
    # fetched: 4 runs x 3 series (the count, real_time, cpu_time) x 3
    # repetitions = 36 values; one run more (45), 3 runs reduced to one
    # value a series (-18): 27
    assert "keeps every run but 9 fewer values than the one it replaces" in stored.stdout
    assert "stored 5 runs" in stored.stdout and runs_on_branch(place) == 5


def test_compaction_on_postgresql(tmp_path, cluster):  # noqa: F811
    db = _history(tmp_path, cluster.createdb("compact_test"))
    before = _points(db)
    done = history("compact", "--db", db, "--keep-commits", KEEP)
    assert done.returncode == 0, done.stderr
    assert f"compacted {COMMITS - KEEP} runs" in done.stdout and "file" not in done.stdout
    assert _points(db) == (before[0], 0)
    assert "nothing to compact" in history("compact", "--db", db, "--keep-commits",
                                           KEEP).stdout


def test_the_size_script_measures_a_compacted_copy_of_each_n():
    """scripts/dev/history_size.py, small: 3 benchmarks x 4 metrics x 3
    repetitions x 6 runs = 216 values; keeping 2 commits, 2 runs keep 36
    values and 4 runs 12; keeping none, 6 runs 12."""
    done = subprocess.run([PYTHON, "-m", "dev.history_size", "--benchmarks", "3", "--runs", "6",
                           "--keep", "2"], cwd=REPO_ROOT / "scripts", capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[0]: line.split(" | ") for line in done.stdout.splitlines()
            if " | " in line and not line.startswith("keep")}
    assert [rows[k][1] for k in ("all", "2", "0")] == ["216", "120", "72"], done.stdout
    # packed bytes per value ingested fall as fewer commits keep every value
    xz = [float(rows[k][5]) for k in ("all", "2", "0")]
    assert xz[0] > xz[1] > xz[2] and "216 values ingested" in done.stdout
