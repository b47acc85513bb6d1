"""`history.py ingest` into SQLite through sqlite3 alone
(scripts/pmubench/history/sqlite_direct.py): the tables it makes are
SQLAlchemy's, the command imports no SQLAlchemy, a database error rolls
the whole command's run back, and ingests at once into one new file lose
and duplicate nothing."""

from __future__ import annotations

import sqlite3
import subprocess

from conftest import PYTHON, REPO_ROOT
from pmubench.history import ingest, sqlite_direct, store, synthetic
from test_history_sqlite import HISTORY, T0, VALUES, _values, history


def _schema(db) -> list[tuple]:
    """Every table and index of db, its SQL without blanks (SQLAlchemy
    writes each column on a line of its own)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select type, name, tbl_name, sql from sqlite_master "
                            "order by type, name").fetchall()
    return [(t, n, tbl, "".join(sql.split()) if sql else None) for t, n, tbl, sql in rows]


def test_a_new_file_gets_the_tables_sqlalchemy_makes(tmp_path):
    sqlite_direct.open_for_ingest(str(tmp_path / "direct.db")).close()
    store.open_store(str(tmp_path / "engine.db"), create=True).dispose()
    direct, engine = _schema(tmp_path / "direct.db"), _schema(tmp_path / "engine.db")
    assert len(engine) == 18 and direct == engine
    with sqlite3.connect(tmp_path / "direct.db") as conn:
        assert conn.execute("select version from schema_version").fetchall() == [(2,)]


def test_an_ingest_into_sqlite_imports_no_sqlalchemy(tmp_path):
    run = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    argv = [PYTHON, "-X", "importtime", HISTORY, "ingest", "--db", str(tmp_path / "h.db"),
            "--commit", "abc1234", "--branch", "main"]
    done = subprocess.run([*argv, run], capture_output=True, text=True, cwd=REPO_ROOT)
    assert done.returncode == 0 and "run 1, 18 values of 6 series" in done.stdout, done.stderr
    assert "sqlite3" in _imported(done.stderr) and "sqlalchemy" not in _imported(done.stderr)
    detect = subprocess.run([PYTHON, "-X", "importtime", HISTORY, "detect", "--db",
                             str(tmp_path / "h.db")], capture_output=True, text=True)
    assert detect.returncode == 0 and "sqlalchemy" in _imported(detect.stderr)


def _imported(importtime: str) -> set[str]:
    """The modules -X importtime lists."""
    return {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines()
            if line.startswith("import time:")}


def test_a_database_error_mid_ingest_writes_nothing(tmp_path, monkeypatch):
    db = tmp_path / "h.db"
    first = synthetic.write(str(tmp_path / "r0.json"), synthetic.run(T0, _values(0)))
    assert history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main",
                   first).returncode == 0

    def failing(*_args):
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(ingest, "_insert_samples", failing)
    second = synthetic.write(str(tmp_path / "r1.json"), synthetic.run(T0 + 1, _values(1)))
    done = history("ingest", "--db", db, "--commit", "abc1235", "--branch", "main", second)
    assert done.returncode == 2
    assert "disk I/O error" in done.stderr and "nothing was written" in done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from runs").fetchone() == (1,)
        assert conn.execute(VALUES).fetchone() == (18,)


def test_ingests_at_once_into_one_new_file_lose_and_duplicate_nothing(tmp_path):
    db = str(tmp_path / "h.db")
    runs = [synthetic.write(str(tmp_path / f"r{i}.json"), synthetic.run(T0 + i, _values(i)))
            for i in range(3)]
    argv = [PYTHON, HISTORY, "ingest", "--db", db, "--commit", "abc1234", "--branch", "main"]
    procs = [subprocess.Popen([*argv, run], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=REPO_ROOT) for run in (*runs, runs[0], runs[1])]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from runs").fetchone() == (3,)
        assert conn.execute("select count(*) from series").fetchone() == (6,)
        assert conn.execute(VALUES).fetchone() == (54,)
        assert conn.execute("select count(*) from schema_version").fetchone() == (1,)
