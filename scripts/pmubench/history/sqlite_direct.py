"""A SQLite history opened with the standard library's sqlite3 alone, for
`history.py ingest`: importing SQLAlchemy cost 0.13 s of CPU, half of a
one-run command (docs/history.md#measured). The file is checked, connected
and read as store.open_store does it (place.py), and a new file gets
TABLES, the statements schema.metadata.create_all runs on SQLite
(tests/python/test_history_sqlite_direct.py holds the two schemas equal).

    conn = sqlite_direct.open_for_ingest(db)
    with sqlite_direct.transaction(conn):
        ...                    # one BEGIN IMMEDIATE ... COMMIT, or ROLLBACK
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator

from pmubench.history import place
from pmubench.history.layout import SCHEMA_VERSION

# schema.py's tables and indexes, in create_all's order.
TABLES = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE machines (id INTEGER NOT NULL, identity VARCHAR(64) NOT NULL, "
    "name VARCHAR(200) NOT NULL, facts TEXT NOT NULL, PRIMARY KEY (id), "
    "CONSTRAINT machines_identity_name UNIQUE (identity, name))",
    'CREATE TABLE meta ("key" VARCHAR(100) NOT NULL, value INTEGER NOT NULL, '
    'PRIMARY KEY ("key"))',
    "CREATE TABLE runs (id INTEGER NOT NULL, content_hash VARCHAR(64) NOT NULL, "
    "machine_id INTEGER NOT NULL, commit_sha VARCHAR(64) NOT NULL, "
    "branch VARCHAR(200) NOT NULL, time FLOAT NOT NULL, backend VARCHAR(40) NOT NULL, "
    "source TEXT NOT NULL, ingested FLOAT NOT NULL, excluded TEXT, PRIMARY KEY (id), "
    "UNIQUE (content_hash), FOREIGN KEY(machine_id) REFERENCES machines (id))",
    "CREATE INDEX runs_branch ON runs (branch, id)",
    "CREATE TABLE series (id INTEGER NOT NULL, machine_id INTEGER NOT NULL, "
    "benchmark TEXT NOT NULL, metric VARCHAR(200) NOT NULL, PRIMARY KEY (id), "
    "CONSTRAINT series_key UNIQUE (machine_id, benchmark, metric), "
    "FOREIGN KEY(machine_id) REFERENCES machines (id))",
    "CREATE TABLE samples (run_id INTEGER NOT NULL, series_id INTEGER NOT NULL, "
    "packed BLOB NOT NULL, CONSTRAINT samples_key PRIMARY KEY (run_id, series_id), "
    "FOREIGN KEY(run_id) REFERENCES runs (id), "
    "FOREIGN KEY(series_id) REFERENCES series (id)) WITHOUT ROWID",
    "CREATE INDEX samples_series ON samples (series_id, run_id)",
    "CREATE TABLE acks (id INTEGER NOT NULL, series_id INTEGER NOT NULL, "
    "commit_sha VARCHAR(64) NOT NULL, note TEXT NOT NULL, time FLOAT NOT NULL, "
    "PRIMARY KEY (id), CONSTRAINT acks_key UNIQUE (series_id, commit_sha), "
    "FOREIGN KEY(series_id) REFERENCES series (id))",
    "CREATE TABLE detect_cache (series_id INTEGER NOT NULL, branch VARCHAR(200) NOT NULL, "
    "last_run INTEGER NOT NULL, generation INTEGER NOT NULL, state BLOB NOT NULL, "
    "PRIMARY KEY (series_id, branch), FOREIGN KEY(series_id) REFERENCES series (id))",
    "CREATE TABLE detected_runs (branch VARCHAR(200) NOT NULL, run_id INTEGER NOT NULL, "
    "PRIMARY KEY (branch, run_id), FOREIGN KEY(run_id) REFERENCES runs (id))",
)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE (the write lock at once, as store's engines take
    it), COMMIT when the block ends, ROLLBACK when anything escapes it: a
    stop signal's SystemExit too."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # an error may have rolled it back already
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _version_of(conn: sqlite3.Connection) -> int | None:
    names = {name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'sqlite~_%' ESCAPE '~'")}
    return place.version_in(names, lambda: conn.execute(
        "SELECT version FROM schema_version").fetchone())


def _connect(db: str, create: bool) -> sqlite3.Connection:
    """store.connect's checks and messages, for a SQLite file."""
    place.check_sqlite_path(db, create)
    try:
        conn = place.connect_sqlite(db)
        conn.execute("SELECT 1")
    except sqlite3.Error as e:
        raise place.StoreError(place.busy(db, e) or
                               f"{place.shown(db)}: cannot connect: "
                               f"{place.reason_of(db, e)}; check the file is a SQLite "
                               "database and readable") from None
    place.check_not_linked(db)  # not swapped for a link while sqlite3 opened it
    return conn


def open_for_ingest(db: str, create: bool = True) -> sqlite3.Connection:
    """The connection to the SQLite history db, its schema version checked
    (store.open_store's messages); with create, a file without tables gets
    this version's. Raises place.StoreError."""
    conn = _connect(db, create)
    try:
        with transaction(conn):
            version = _version_of(conn)
            if version is None:
                if not create:
                    raise place.StoreError("is empty; `history.py ingest` fills it")
                for statement in TABLES:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)",
                             (SCHEMA_VERSION,))
                return conn
    except place.StoreError as e:
        conn.close()
        raise place.StoreError(f"{place.shown(db)}: {e}") from None
    except sqlite3.Error as e:
        conn.close()
        raise place.StoreError(place.busy(db, e) or f"{place.shown(db)}: cannot read its "
                               f"tables: {place.reason_of(db, e)}") from None
    try:
        place.check_version(db, version)
    except place.StoreError:
        conn.close()
        raise
    return conn
