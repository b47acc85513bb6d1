"""Bad input to scripts/history.py: exit 2, a message naming the input and
the fix, and nothing written (the database as it was, or no database)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest

from pmubench.history import ingest, place, store, synthetic
from test_history_sqlite import T0, _ingest_series, _sha, _values, history


def _file_hash(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _good_db(tmp_path):
    db = tmp_path / "h.db"
    run = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    done = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", run)
    assert done.returncode == 0, done.stderr
    return db


def test_a_file_that_is_not_a_run(tmp_path):
    db = _good_db(tmp_path)
    before = _file_hash(db)
    not_run = tmp_path / "notes.json"
    not_run.write_text(json.dumps({"hello": 1}))
    done = history("ingest", "--db", db, "--commit", "abc1235", "--branch", "main", not_run)
    assert done.returncode == 2
    assert "notes.json" in done.stderr and "benchmark_out" in done.stderr
    assert _file_hash(db) == before


def test_a_bad_file_among_good_ones_writes_none(tmp_path):
    db = tmp_path / "h.db"
    good = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", good, bad)
    assert done.returncode == 2 and "bad.json" in done.stderr
    assert not db.exists()


def test_a_database_of_a_newer_schema(tmp_path):
    db = _good_db(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("update schema_version set version = 99")
    before = _file_hash(db)
    run = synthetic.write(str(tmp_path / "r2.json"), synthetic.run(T0 + 1, _values(1)))
    for args in (("ingest", "--db", db, "--commit", "abc1235", "--branch", "main", run),
                 ("detect", "--db", db), ("upgrade", "--db", db)):
        done = history(*args)
        assert done.returncode == 2, args
        assert "newer pmubench" in done.stderr and "version 99" in done.stderr
    assert _file_hash(db) == before


def test_an_older_schema_asks_for_upgrade_and_a_current_one_needs_none(tmp_path):
    db = _good_db(tmp_path)
    assert "nothing to do" in history("upgrade", "--db", db).stdout
    with sqlite3.connect(db) as conn:
        conn.execute("update schema_version set version = 0")
    done = history("detect", "--db", db)
    assert done.returncode == 2 and "history.py upgrade" in done.stderr


def test_a_file_that_is_not_sqlite(tmp_path):
    text = tmp_path / "history.txt"
    text.write_text("these are my notes\n" * 10)
    run = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    done = history("ingest", "--db", text, "--commit", "abc1234", "--branch", "main", run)
    assert done.returncode == 2
    assert "history.txt" in done.stderr and "not a SQLite database" in done.stderr
    assert text.read_text() == "these are my notes\n" * 10


def test_a_run_mixing_backends(tmp_path):
    mixed = synthetic.run(T0, _values(0), backend="native")  # callgrind counts, native context
    path = synthetic.write(str(tmp_path / "mixed.json"), mixed)
    db = tmp_path / "h.db"
    done = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", path)
    assert done.returncode == 2
    assert "mixed.json" in done.stderr and "mixing backends" in done.stderr
    assert not db.exists()


def test_a_plain_google_benchmark_case_in_a_callgrind_run_keeps_its_times(tmp_path):
    """BENCHMARK(BM_Plain) beside PMU_BENCHMARK cases under --pmubench_simulate
    (the default suite has such cases) has valgrind's times and no counts:
    its family is not in pmubench_case_files, so the run is one backend's.
    A pmubench case without counts is still a file mixing backends."""
    values = {**_values(0), "BM_Plain": {"real_time": [5.0] * 3}}
    listed = "BM_A=cases;BM_B=cases"
    path = synthetic.write(str(tmp_path / "plain.json"),
                           synthetic.run(T0, values, pmubench_case_files=listed))
    db = tmp_path / "h.db"
    done = history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", path)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        metrics = conn.execute(
            "select metric from series where benchmark = 'BM_Plain'").fetchall()
    assert sorted(m for (m,) in metrics) == ["cpu_time", "real_time"]
    counted = synthetic.run(T0, values, pmubench_case_files=listed + ";BM_Plain=cases")
    path = synthetic.write(str(tmp_path / "listed.json"), counted)
    done = history("ingest", "--db", tmp_path / "h2.db", "--commit", "abc1234",
                   "--branch", "main", path)
    assert done.returncode == 2
    assert "BM_Plain has no callgrind counts" in done.stderr


def test_detect_on_a_missing_database(tmp_path):
    done = history("detect", "--db", tmp_path / "none.db")
    assert done.returncode == 2 and "none.db" in done.stderr and "ingest" in done.stderr
    assert not (tmp_path / "none.db").exists()


def test_an_unreachable_server_never_shows_the_password():
    done = history("detect", "--db", "postgresql://bench:s3cretpw@127.0.0.1:1/history")
    assert done.returncode == 2
    assert "cannot connect" in done.stderr and "PGHOST" in done.stderr
    assert "s3cretpw" not in done.stderr + done.stdout


# Issue 38: values no report can show, names no database stores, files that
# never end, a busy database, an ack of nothing: each refused, exit 2, named.

def _ingest_one(tmp_path, obj, *extra, db=None, name="r.json"):
    db = db or tmp_path / "h.db"
    path = synthetic.write(str(tmp_path / name), obj)
    return db, history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main",
                       *extra, path)


@pytest.mark.parametrize("time", ["inf", "1e300", "nan", "-1"])
def test_a_time_no_report_can_show_is_refused(tmp_path, time):
    db, done = _ingest_one(tmp_path, synthetic.run(T0, _values(0)), "--time", time)
    assert done.returncode == 2 and "--time" in done.stderr and "1970" in done.stderr
    assert not db.exists()


def test_a_context_date_no_report_can_show_is_refused(tmp_path):
    db, done = _ingest_one(tmp_path, synthetic.run(T0, _values(0), date="1e300"))
    assert done.returncode == 2 and "context.date" in done.stderr
    assert not db.exists()


def _renamed(benchmark: str = "BM_A", metric: str = "real_time") -> dict:
    return synthetic.run(T0, {benchmark: {metric: [1.0, 1.1]}}, backend="native")


@pytest.mark.parametrize("bad", ["surrogate \ud800 name", "nul \0 name", "x" * 201])
@pytest.mark.parametrize("where", ["benchmark", "metric"])
def test_a_name_no_database_keeps_is_refused_before_writing(tmp_path, bad, where):
    obj = _renamed(benchmark=bad) if where == "benchmark" else _renamed(metric=bad)
    db, done = _ingest_one(tmp_path, obj)
    assert done.returncode == 2, done.stderr
    assert where in done.stderr and "r.json" in done.stderr
    assert ("200" in done.stderr) == (len(bad) == 201)
    assert not db.exists()


def test_a_name_of_the_limit_is_kept(tmp_path):
    db, done = _ingest_one(tmp_path, _renamed(benchmark="B" * 200, metric="m" * 200))
    assert done.returncode == 0, done.stderr


def test_a_branch_or_machine_name_too_long_is_refused(tmp_path):
    db, done = _ingest_one(tmp_path, _renamed(), "--branch", "b" * 201)
    assert done.returncode == 2 and "--branch" in done.stderr
    db, done = _ingest_one(tmp_path, _renamed(), "--machine", "m" * 192)
    assert done.returncode == 2 and "--machine" in done.stderr
    assert not db.exists()


def test_a_run_id_beyond_any_is_refused(tmp_path):
    db = _good_db(tmp_path)
    before = _file_hash(db)
    for run in ("99999999999999999999", "0", "-3"):
        done = history("exclude", "--db", db, "--run", run, "--reason", "x")
        assert done.returncode == 2 and f"--run {run}" in done.stderr, done.stderr
    assert _file_hash(db) == before


def test_a_schema_version_that_is_not_a_number(tmp_path):
    db = _good_db(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("update schema_version set version = 'abc'")
    for verb in ("detect", "upgrade"):
        done = history(verb, "--db", db)
        assert done.returncode == 2 and "'abc'" in done.stderr and "schema_version" in done.stderr


def test_a_fifo_as_a_run_is_refused_at_once(tmp_path):
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    done = history("ingest", "--db", tmp_path / "h.db", "--commit", "abc1234", "--branch",
                   "main", fifo, separate=True)  # the old code waited for a writer
    assert done.returncode == 2 and "run.json: is a FIFO" in done.stderr
    assert not (tmp_path / "h.db").exists()


def test_a_device_as_a_run_is_refused_at_once(tmp_path):
    done = history("ingest", "--db", tmp_path / "h.db", "--commit", "abc1234", "--branch",
                   "main", "/dev/zero")
    assert done.returncode == 2 and "/dev/zero: is a device" in done.stderr


def test_a_run_beyond_the_size_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(ingest, "MAX_RUN_BYTES", 1 << 20)
    obj = synthetic.run(T0, _values(0))
    obj["context"]["padding"] = "x" * (1 << 20)
    db, done = _ingest_one(tmp_path, obj)
    assert done.returncode == 2 and "larger than 1 MiB" in done.stderr
    assert not db.exists()


def test_the_file_is_read_once_and_its_hash_is_of_what_was_parsed(tmp_path, monkeypatch):
    path = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(p) or real_open(p, *a, **k))
    monkeypatch.setattr("builtins.open", lambda *a, **k: pytest.fail(f"open({a[0]})"))
    prepared = ingest.prepare(path)
    assert opened == [path]
    assert prepared.content_hash == hashlib.sha256(open_bytes(path)).hexdigest()


def open_bytes(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def test_a_database_locked_too_long_is_named_busy(tmp_path, monkeypatch):
    db = _good_db(tmp_path)
    monkeypatch.setattr(place, "BUSY_TIMEOUT", 0.2)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process's open transaction
    try:
        for args in (("detect", "--db", db),
                     ("exclude", "--db", db, "--commit", "abc1234", "--reason", "x")):
            done = history(*args)
            assert done.returncode == 2, done.stderr
            assert "busy" in done.stderr and "fuser" in done.stderr, done.stderr
            assert "is a SQLite database" not in done.stderr
    finally:
        holder.rollback()
        holder.close()
    assert history("detect", "--db", db).returncode == 0


def test_ack_refuses_a_commit_that_is_not_a_change_point_and_an_empty_note(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 14)
    machine = json.loads(history("detect", "--db", db, "--format", "json").stdout)[
        "change_points"][0]["machine"]
    ack = ("ack", "--db", db, "--machine", machine, "--benchmark", "BM_A",
           "--metric", "callgrind/instructions/")
    done = history(*ack, "--commit", _sha(3), "--note", "expected")
    assert done.returncode == 2
    assert "not a change point" in done.stderr and _sha(8)[:12] in done.stderr
    flat = history("ack", "--db", db, "--machine", machine, "--benchmark", "BM_B",
                   "--metric", "callgrind/instructions/", "--commit", _sha(3), "--note", "x")
    assert flat.returncode == 2 and "has no change point" in flat.stderr
    for note in ("", "   "):
        done = history(*ack, "--commit", _sha(8), "--note", note)
        assert done.returncode == 2 and "--note is empty" in done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from acks").fetchone() == (0,)
    assert history(*ack, "--commit", _sha(8), "--note", "expected").returncode == 0
