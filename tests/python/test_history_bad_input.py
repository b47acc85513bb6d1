"""Bad input to scripts/history.py: exit 2, a message naming the input and
the fix, and nothing written (the database as it was, or no database)."""

from __future__ import annotations

import hashlib
import json
import sqlite3

from pmubench.history import synthetic
from test_history_sqlite import T0, _values, history


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


def test_detect_on_a_missing_database(tmp_path):
    done = history("detect", "--db", tmp_path / "none.db")
    assert done.returncode == 2 and "none.db" in done.stderr and "ingest" in done.stderr
    assert not (tmp_path / "none.db").exists()


def test_an_unreachable_server_never_shows_the_password():
    done = history("detect", "--db", "postgresql://bench:s3cretpw@127.0.0.1:1/history")
    assert done.returncode == 2
    assert "cannot connect" in done.stderr and "PGHOST" in done.stderr
    assert "s3cretpw" not in done.stderr + done.stdout
