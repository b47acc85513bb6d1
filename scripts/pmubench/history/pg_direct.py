"""A PostgreSQL history opened with psycopg2 alone, for `history.py
ingest`: importing SQLAlchemy cost 0.13 s of CPU, half of a one-run
command (docs/history.md#measured). The URL goes to libpq as it is
(postgresql+psycopg2:// as postgresql://); the schema version is checked
under the advisory lock store.open_store takes, and a new database gets
TABLES, the statements schema.metadata.create_all runs on PostgreSQL
(tests/python/test_history_pg_direct.py holds the two schemas equal).
Whatever this cannot open, store.open_store opens or refuses with its
own message (the command line falls back to it).

    conn = pg_direct.open_for_ingest(db)   # None: let store.open_store try
    with pg_direct.transaction(conn):
        ...                                # COMMIT, or ROLLBACK
"""

from __future__ import annotations

from contextlib import closing, contextmanager
from typing import Any, Iterator

from pmubench.history import place
from pmubench.history.layout import SCHEMA_VERSION

# schema.py's tables and indexes, in create_all's order.
TABLES = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE machines (id SERIAL NOT NULL, identity VARCHAR(64) NOT NULL, "
    "name VARCHAR(200) NOT NULL, facts TEXT NOT NULL, PRIMARY KEY (id), "
    "CONSTRAINT machines_identity_name UNIQUE (identity, name))",
    "CREATE TABLE meta (key VARCHAR(100) NOT NULL, value INTEGER NOT NULL, "
    "PRIMARY KEY (key))",
    "CREATE TABLE runs (id SERIAL NOT NULL, content_hash VARCHAR(64) NOT NULL, "
    "machine_id INTEGER NOT NULL, commit_sha VARCHAR(64) NOT NULL, "
    "branch VARCHAR(200) NOT NULL, time FLOAT NOT NULL, backend VARCHAR(40) NOT NULL, "
    "source TEXT NOT NULL, ingested FLOAT NOT NULL, excluded TEXT, PRIMARY KEY (id), "
    "UNIQUE (content_hash), FOREIGN KEY(machine_id) REFERENCES machines (id))",
    "CREATE INDEX runs_branch ON runs (branch, id)",
    "CREATE TABLE series (id SERIAL NOT NULL, machine_id INTEGER NOT NULL, "
    "benchmark TEXT NOT NULL, metric VARCHAR(200) NOT NULL, PRIMARY KEY (id), "
    "CONSTRAINT series_key UNIQUE (machine_id, benchmark, metric), "
    "FOREIGN KEY(machine_id) REFERENCES machines (id))",
    "CREATE TABLE samples (run_id INTEGER NOT NULL, series_id INTEGER NOT NULL, "
    "packed BYTEA NOT NULL, CONSTRAINT samples_key PRIMARY KEY (run_id, series_id), "
    "FOREIGN KEY(run_id) REFERENCES runs (id), "
    "FOREIGN KEY(series_id) REFERENCES series (id))",
    "CREATE INDEX samples_series ON samples (series_id, run_id)",
    "CREATE TABLE acks (id SERIAL NOT NULL, series_id INTEGER NOT NULL, "
    "commit_sha VARCHAR(64) NOT NULL, note TEXT NOT NULL, time FLOAT NOT NULL, "
    "PRIMARY KEY (id), CONSTRAINT acks_key UNIQUE (series_id, commit_sha), "
    "FOREIGN KEY(series_id) REFERENCES series (id))",
    "CREATE TABLE detect_cache (series_id INTEGER NOT NULL, branch VARCHAR(200) NOT NULL, "
    "last_run INTEGER NOT NULL, generation INTEGER NOT NULL, state BYTEA NOT NULL, "
    "PRIMARY KEY (series_id, branch), FOREIGN KEY(series_id) REFERENCES series (id))",
    "CREATE TABLE detected_runs (branch VARCHAR(200) NOT NULL, run_id INTEGER NOT NULL, "
    "PRIMARY KEY (branch, run_id), FOREIGN KEY(run_id) REFERENCES runs (id))",
)

# store._lock_schema's: two first ingests at once, one makes the tables.
SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(4242001)"


@contextmanager
def transaction(conn: Any) -> Iterator[Any]:  # psycopg2's connection
    """The block as one transaction (psycopg2 opens it at the first
    statement): COMMIT when the block ends, ROLLBACK when anything escapes
    it, a stop signal's SystemExit too."""
    try:
        yield conn
    except BaseException:
        if not conn.closed:
            conn.rollback()
        raise
    conn.commit()


def _version_of(cursor: Any) -> int | None:
    """store.version_of's answer: the tables of the current schema, as
    SQLAlchemy's inspector lists them."""
    cursor.execute("SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                   "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
                   "AND c.relkind IN ('r', 'p')")
    names = {name for (name,) in cursor.fetchall()}

    def first_row() -> tuple | None:
        cursor.execute("SELECT version FROM schema_version")
        return cursor.fetchone()
    return place.version_in(names, first_row)


def _connect(db: str) -> Any:
    """psycopg2's connection to db; None when it fails, for whatever reason
    (a URL libpq reads otherwise, a port that is not a number, a server that
    refuses or cannot be reached): store.open_store then tries once more and
    says why, with the message every verb gives (so an unreachable server
    is tried twice)."""
    import psycopg2  # only a server's ingest needs it
    try:
        return psycopg2.connect("postgresql:" + db.split(":", 1)[1])
    except (psycopg2.Error, ValueError):
        return None


def open_for_ingest(db: str) -> Any:
    """psycopg2's connection to the history at the server URL db, of this
    schema version; a database without tables gets this version's. None
    when anything else is found (not a history, another version, an error
    reading it): store.open_store then opens it or says what is wrong."""
    import psycopg2
    conn = _connect(db)
    if conn is None:
        return None
    try:
        with transaction(conn), closing(conn.cursor()) as cursor:
            cursor.execute(SCHEMA_LOCK)
            version = _version_of(cursor)
            if version is None:
                for statement in TABLES:
                    cursor.execute(statement)
                cursor.execute("INSERT INTO schema_version (version) VALUES (%s)",
                               (SCHEMA_VERSION,))
                version = SCHEMA_VERSION
    except (place.StoreError, psycopg2.Error):
        version = None
    if version != SCHEMA_VERSION:
        conn.close()
        return None
    return conn
