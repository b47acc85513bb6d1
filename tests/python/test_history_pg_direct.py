"""`history.py ingest` into PostgreSQL through psycopg2 alone
(scripts/pmubench/history/pg_direct.py), on a cluster the test starts as
test_history_postgres.py does: the tables it makes are SQLAlchemy's, the
command imports no SQLAlchemy, and what it cannot open (a server that
refuses, a database of another version) is refused with the message
every verb gives."""

from __future__ import annotations

import subprocess

from conftest import PYTHON, REPO_ROOT
from pmubench.history import pg_direct, pgcluster, store, synthetic
from test_history_postgres import cluster  # noqa: F401 - the fixture
from test_history_sqlite import HISTORY, T0, _values, history
from test_history_sqlite_direct import _imported


def _schema(url: str) -> str:
    """pg_dump's description of the database's tables, indexes and
    constraints (without its \\restrict lines: a random key each dump)."""
    dumped = subprocess.run([f"{pgcluster.PG_BIN}/pg_dump", "--schema-only", "--no-owner",
                             "-d", url], capture_output=True, text=True, check=True).stdout
    return "\n".join(line for line in dumped.splitlines()
                     if not line.startswith(("\\restrict", "\\unrestrict")))


def test_a_new_database_gets_the_tables_sqlalchemy_makes(cluster):  # noqa: F811
    direct, engine = cluster.createdb("direct_schema"), cluster.createdb("engine_schema")
    pg_direct.open_for_ingest(direct).close()
    store.open_store(engine, create=True).dispose()
    dumped = _schema(direct)
    assert "CREATE TABLE public.samples" in dumped and "samples_series" in dumped
    assert dumped == _schema(engine)


def test_an_ingest_into_postgresql_imports_no_sqlalchemy(tmp_path, cluster):  # noqa: F811
    db = cluster.createdb("direct_imports")
    runs = [synthetic.write(str(tmp_path / f"r{i}.json"), synthetic.run(T0 + i, _values(i)))
            for i in range(2)]
    argv = [PYTHON, "-X", "importtime", HISTORY, "ingest", "--db", db, "--commit", "abc1234",
            "--branch", "main"]
    for run in runs:  # into a new database, then into one with tables
        done = subprocess.run([*argv, run], capture_output=True, text=True, cwd=REPO_ROOT)
        assert done.returncode == 0 and "18 values of 6 series" in done.stdout, done.stderr
        assert "psycopg2" in _imported(done.stderr)
        assert "sqlalchemy" not in _imported(done.stderr)
    assert "already in" in history("ingest", "--db", db, "--commit", "abc1234",
                                   "--branch", "main", runs[0]).stdout


def test_what_psycopg2_cannot_open_is_refused_as_every_verb_refuses_it(tmp_path, cluster):  # noqa: F811
    run = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    ingest = ("ingest", "--commit", "abc1234", "--branch", "main", run)
    refused = cluster.url("postgres").replace("bench@", "nosuchrole:pw123@")
    by_ingest, by_detect = history(*ingest, "--db", refused), history("detect", "--db", refused)
    assert by_ingest.returncode == by_detect.returncode == 2
    assert "cannot connect" in by_ingest.stderr and "pw123" not in by_ingest.stderr
    assert by_ingest.stderr == by_detect.stderr
    newer = cluster.createdb("direct_newer")
    assert history(*ingest, "--db", newer).returncode == 0
    import sqlalchemy
    engine = sqlalchemy.create_engine(newer)
    with engine.begin() as conn:
        conn.exec_driver_sql("update schema_version set version = 99")
    engine.dispose()
    again = history("ingest", "--commit", "abc1235", "--branch", "main", "--db", newer,
                    synthetic.write(str(tmp_path / "r1.json"), synthetic.run(T0 + 1, _values(1))))
    assert again.returncode == 2 and "newer pmubench" in again.stderr, again.stderr
