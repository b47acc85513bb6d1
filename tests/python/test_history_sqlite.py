"""scripts/history.py on real SQLite files: ingest (idempotent, every
repetition, commit from the checkout, killed mid-way), detect (JSON fields,
exact and noisy points, incremental), judge exit codes, ack, exclude,
machine identity, and bad input (exit 2, nothing written)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import sqlite3
import struct
import subprocess
import time

import pytest

from conftest import PYTHON, REPO_ROOT
from pmubench.history import cli, ingest, store, synthetic

HISTORY = str(REPO_ROOT / "scripts" / "history.py")
DAY = 86400.0
T0 = 1.7e9
# Every value the samples table holds: a row per (run, series), its
# repetitions packed as float64s (schema.py).
VALUES = "select sum(length(packed)) / 8 from samples"


def history(*args, cwd=None, env=None, separate=False):
    """Runs history.py with args: in this process (cli.main, the code the
    script runs, without an interpreter start per call), or with separate
    as its own process, the way a user does."""
    argv = list(map(str, args))
    if separate:
        return subprocess.run([PYTHON, HISTORY, *argv], capture_output=True, text=True,
                              cwd=cwd or REPO_ROOT, timeout=120,
                              env={**os.environ, **(env or {})})
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.update(env or {})
    os.chdir(cwd or REPO_ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def _sha(i: int) -> str:
    return hashlib.sha1(str(i).encode()).hexdigest()


def _values(i: int, step_at: int = 8, reps: int = 3, backend: str = "callgrind") -> dict:
    """Two benchmarks: exact instruction counts with a step at step_at, and
    a noisy real_time with a 30% step there."""
    instr = 1000.0 if i < step_at else 1100.0
    noise = [(i * 7 + r * 3) % 5 * 0.01 for r in range(reps)]
    time_level = 10.0 if i < step_at else 13.0
    count = "callgrind/instructions/" if backend == "callgrind" else "instructions"
    return {"BM_A": {count: [instr] * reps,
                     "real_time": [time_level + n for n in noise]},
            "BM_B": {count: [500.0] * reps,
                     "real_time": [20.0 + n for n in noise]}}


def _ingest_series(tmp_path, db, count, start=0, backend="callgrind", **kw):
    """Ingests runs start.. start+count-1 through the package's functions
    (the command line is tested on its own below: this is the bulk path)."""
    engine = store.open_store(db, create=True)
    for i in range(start, start + count):
        path = synthetic.write(str(tmp_path / f"run{i}.json"), synthetic.run(
            T0 + i * DAY, _values(i, backend=backend, **kw), backend))
        prepared = ingest.prepare(path)
        assert ingest.write(engine, prepared, _sha(i), "main", prepared.time, None)
    engine.dispose()


def _detect(db, *extra):
    done = history("detect", "--db", db, "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_ingest_is_idempotent_and_keeps_every_repetition(tmp_path):
    db = str(tmp_path / "h.db")
    path = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0, reps=5)))
    first = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", path)
    second = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "already in" in second.stdout
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from runs").fetchone() == (1,)
        # 2 benchmarks x (instructions, real_time, cpu_time) x 5 repetitions
        assert conn.execute(VALUES).fetchone() == (30,)


def test_one_command_of_runs_whose_series_differ(tmp_path):
    """The runs of one ingest command share the series ids they made; a
    run with a series the earlier ones lacked still gets its own, and
    every value lands in its series."""
    db = str(tmp_path / "h.db")
    first = _values(0, reps=2, backend="perf_event")
    second = {**_values(1, reps=2, backend="perf_event"), "BM_C": {"real_time": [7.0, 8.0]}}
    paths = [synthetic.write(str(tmp_path / f"r{i}.json"),
                             synthetic.run(T0 + i * DAY, v, "perf_event"))
             for i, v in enumerate((first, second, first))]
    done = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", *paths)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select r.source, s.benchmark, s.metric, v.packed from samples v "
                            "join runs r on r.id = v.run_id "
                            "join series s on s.id = v.series_id").fetchall()
    stored = {(src, b, m): struct.unpack("<2d", p) for src, b, m, p in rows}
    expected = list(zip(paths, (first, second, first)))
    assert {src for src, b, _, _ in rows if b == "BM_C"} == {paths[1]}
    for src, values in expected:
        for b, metrics in values.items():
            for m, reps in metrics.items():
                assert stored[(src, b, m)] == tuple(reps), (src, b, m)


def test_commit_and_branch_come_from_the_checkout(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "trunk"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], cwd=repo, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()
    path = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    db = str(tmp_path / "h.db")
    done = history("ingest", "--db", db, path, cwd=repo, separate=True)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select commit_sha, branch from runs").fetchone() == (head, "trunk")


def test_outside_a_checkout_without_commit_is_refused(tmp_path):
    path = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    done = history("ingest", "--db", str(tmp_path / "h.db"), path, cwd=tmp_path,
                   env={"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})
    assert done.returncode == 2
    assert "--commit" in done.stderr and "git checkout" in done.stderr
    assert not (tmp_path / "h.db").exists()


def test_detect_reports_exact_and_noisy_steps_at_their_commit(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 16, backend="perf_event")
    points = _detect(db)["change_points"]
    by_metric = {(p["benchmark"], p["metric"]): p for p in points}
    assert set(by_metric) == {("BM_A", "instructions"), ("BM_A", "real_time")}
    exact = by_metric[("BM_A", "instructions")]
    assert exact["commit"] == _sha(8) and exact["p_value"] is None
    assert (exact["before"], exact["after"]) == (1000.0, 1100.0)
    assert exact["change"] == pytest.approx(0.1)
    assert exact["text"] == "1,000 -> 1,100 (+100, +10.00%)"
    noisy = by_metric[("BM_A", "real_time")]
    assert noisy["commit"] == _sha(8) and 0 <= noisy["p_value"] < 0.001
    for key in ("machine", "benchmark", "metric", "commit", "before", "after", "change",
                "p_value"):
        assert key in exact


def test_detect_after_one_new_run_only_appends(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 14)
    first = _detect(db)
    assert first["recomputed"] == first["series"] == 6
    _ingest_series(tmp_path, db, 1, start=14)
    second = _detect(db)
    assert second["recomputed"] == 0 and second["appended"] == 6
    unchanged = _detect(db)
    assert unchanged["recomputed"] == 0 and unchanged["appended"] == 0
    with sqlite3.connect(db) as conn:
        conn.execute("delete from detect_cache")
    full = _detect(db)
    assert full["recomputed"] == 6
    assert full["change_points"] == second["change_points"]


def test_judge_exit_codes(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 14)
    same = synthetic.write(str(tmp_path / "same.json"), synthetic.run(T0 + 30 * DAY,
                                                                     _values(20)))
    worse_values = _values(20)
    worse_values["BM_B"]["callgrind/instructions/"] = [520.0] * 3
    worse = synthetic.write(str(tmp_path / "worse.json"),
                            synthetic.run(T0 + 30 * DAY, worse_values))
    other = synthetic.write(str(tmp_path / "other.json"),
                            synthetic.run(T0 + 30 * DAY, _values(20), cpus=64))
    assert history("judge", "--db", db, same, separate=True).returncode == 0
    regression = history("judge", "--db", db, worse, separate=True)
    assert regression.returncode == 1, regression.stdout + regression.stderr
    assert "BM_B callgrind/instructions/" in regression.stdout
    assert history("judge", "--db", db, other).returncode == 4
    bad = history("judge", "--db", db, str(tmp_path / "missing.json"), separate=True)
    assert bad.returncode == 2 and "missing.json" in bad.stderr


def test_ack_and_exclude(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 14, backend="perf_event")
    machine = _detect(db)["change_points"][0]["machine"]
    done = history("ack", "--db", db, "--machine", machine, "--benchmark", "BM_A",
                   "--metric", "instructions", "--commit", _sha(8)[:10],
                   "--note", "new hash function")
    assert done.returncode == 0, done.stderr
    acked = {p["metric"]: p for p in _detect(db)["change_points"]}
    assert acked["instructions"]["acknowledged"] is True
    assert acked["instructions"]["note"] == "new hash function"
    assert acked["real_time"]["acknowledged"] is False
    # a bad run: one commit whose instructions jumped, then excluded
    spike = _values(20, backend="perf_event")
    spike["BM_B"]["instructions"] = [900.0] * 3
    path = synthetic.write(str(tmp_path / "spike.json"), synthetic.run(T0 + 20 * DAY, spike,
                                                                 "perf_event"))
    assert history("ingest", "--db", db, "--commit", _sha(20), "--branch", "main", path).returncode == 0
    assert any(p["benchmark"] == "BM_B" for p in _detect(db)["change_points"])
    done = history("exclude", "--db", db, "--commit", _sha(20), "--reason", "noisy host")
    assert done.returncode == 0, done.stderr
    assert not any(p["benchmark"] == "BM_B" for p in _detect(db)["change_points"])


def test_machine_identity_splits_series_and_name_overrides(tmp_path):
    db = str(tmp_path / "h.db")
    a = synthetic.write(str(tmp_path / "a.json"), synthetic.run(T0, _values(0)))
    b = synthetic.write(str(tmp_path / "b.json"), synthetic.run(
        T0 + DAY, _values(1), pmubench_cache_geometry="I1=65536,8,64 D1=65536,8,64 "
                                                       "LL=8388608,16,64"))
    c = synthetic.write(str(tmp_path / "c.json"), synthetic.run(T0 + 2 * DAY, _values(2)))
    assert history("ingest", "--db", db, "--commit", "aaaa1", "--branch", "main", a).returncode == 0
    assert history("ingest", "--db", db, "--commit", "bbbb2", "--branch", "main", b).returncode == 0
    assert history("ingest", "--db", db, "--commit", "cccc3", "--branch", "main", "--machine", "ci-sim",
                   c).returncode == 0
    with sqlite3.connect(db) as conn:
        names = [n for (n,) in conn.execute("select name from machines order by id")]
        assert len(names) == 3 and names[2] == "ci-sim"
        assert conn.execute("select count(*) from series").fetchone() == (18,)


def _wait_for(path: str, proc: subprocess.Popen) -> bool:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.002)
    return False


def kill_mid_write(argv: list[str], db: str, extra: float) -> bool:
    """Runs history.py argv and SIGKILLs it `extra` seconds after its
    rollback journal appears (at once when it ends first); whether it was
    still running then."""
    proc = subprocess.Popen([PYTHON, HISTORY, *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    running = False
    if _wait_for(db + "-journal", proc):
        time.sleep(extra)
        running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return running


def test_killed_ingest_leaves_nothing_half_written(tmp_path):
    """SIGKILL while the run's transaction is writing (its rollback
    journal exists): the next reader finds no trace of the run."""
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 1)
    big = {f"BM_{i}": {"callgrind/instructions/": [float(i)] * 20,
                       "real_time": [1.0 + j for j in range(20)]} for i in range(1500)}
    path = synthetic.write(str(tmp_path / "big.json"), synthetic.run(T0, big))
    expected = 1500 * 3 * 20
    killed_mid_write = 0
    for extra in (0.0, 0.05, 0.3):
        killed_mid_write += kill_mid_write(["ingest", "--db", db, "--commit", "abcd123",
                                            "--branch", "main", path], db, extra)
        with sqlite3.connect(db) as conn:
            runs = conn.execute("select count(*) from runs").fetchone()[0]
            samples = conn.execute(VALUES).fetchone()[0]
        assert (runs, samples) in ((1, 18), (2, 18 + expected))
    assert killed_mid_write >= 1
    done = history("ingest", "--db", db, "--commit", "abcd123", "--branch", "main", path)
    assert done.returncode == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute(VALUES).fetchone() == (18 + expected,)


def test_detect_text_and_since(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 14)
    text = history("detect", "--db", db)
    assert text.returncode == 0
    # real_time steps too, but a simulator's times are never judged
    assert text.stdout.startswith("1 change point in 6 series on main\n")
    assert "real_time" not in text.stdout
    assert (f"{_sha(8)[:12]} " in text.stdout
            and "callgrind/instructions/: 1,000 -> 1,100 (+100, +10.00%, exact)" in text.stdout)
    after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + 9 * DAY))
    assert _detect(db, "--since", after)["change_points"] == []
    bad = history("detect", "--db", db, "--since", "yesterday")
    assert bad.returncode == 2 and "--since" in bad.stderr
