"""The history database's tables (SQLAlchemy Core), one schema for SQLite
and PostgreSQL.

- schema_version: one row, the version this file describes (SCHEMA_VERSION).
  A tool refuses a database of another version: a newer one names the
  release to install, an older one the `upgrade` verb (UPGRADES).
- machines: one row per machine identity (identity.py): the hash of its
  stable facts, the name shown, the facts as JSON.
- runs: one row per ingested file, keyed by the SHA-256 of its bytes (the
  same file twice is one run); commit, branch, time (the run's date, UTC
  seconds), backend; excluded holds the reason an `exclude` gave.
- series: (machine, benchmark, metric); a branch picks the runs.
- samples: one row per (run, series): every repetition of that run's
  metric, packed in file order as little-endian float64s (pack/unpack);
  three repetitions are one row, not three (an ingest's cost is mostly
  rows and their index entries). Version 1 had a row per repetition.
- acks: a change point marked expected (series, commit, note).
- detect_cache: per (series, branch) the last detection and what it saw,
  so detect after one new run recomputes only the series it touched.
- detected_runs: the runs detect has seen, per branch (the new ones are
  the branch's runs not in it: a run id given out before a later one but
  committed after it is not missed).
- meta: counters (the exclusion generation that invalidates the cache).
"""

from __future__ import annotations

from contextlib import closing
from itertools import groupby, islice
from operator import itemgetter
from typing import Iterator

from sqlalchemy import (Column, Float, ForeignKey, Index, Integer, LargeBinary,
                        MetaData, PrimaryKeyConstraint, String, Table, Text,
                        UniqueConstraint, func, select, text)

# The version, the name limit and the packing live in layout.py (no
# SQLAlchemy there); they are this module's names too.
from pmubench.history.layout import (MAX_NAME, SCHEMA_VERSION, VALUE_BYTES,  # noqa: F401
                                     pack, unpack)

metadata = MetaData()

schema_version = Table(
    "schema_version", metadata,
    Column("version", Integer, nullable=False))

machines = Table(
    "machines", metadata,
    Column("id", Integer, primary_key=True),
    Column("identity", String(64), nullable=False),
    Column("name", String(MAX_NAME), nullable=False),
    Column("facts", Text, nullable=False),
    UniqueConstraint("identity", "name", name="machines_identity_name"))

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("content_hash", String(64), nullable=False, unique=True),
    Column("machine_id", Integer, ForeignKey("machines.id"), nullable=False),
    Column("commit_sha", String(64), nullable=False),
    Column("branch", String(MAX_NAME), nullable=False),
    Column("time", Float, nullable=False),
    Column("backend", String(40), nullable=False),
    Column("source", Text, nullable=False),
    Column("ingested", Float, nullable=False),
    Column("excluded", Text),
    Index("runs_branch", "branch", "id"))

series = Table(
    "series", metadata,
    Column("id", Integer, primary_key=True),
    Column("machine_id", Integer, ForeignKey("machines.id"), nullable=False),
    Column("benchmark", Text, nullable=False),
    Column("metric", String(MAX_NAME), nullable=False),
    UniqueConstraint("machine_id", "benchmark", "metric", name="series_key"))

samples = Table(
    "samples", metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("series_id", Integer, ForeignKey("series.id"), nullable=False),
    Column("packed", LargeBinary, nullable=False),
    PrimaryKeyConstraint("run_id", "series_id", name="samples_key"),
    Index("samples_series", "series_id", "run_id"),
    # SQLite: the rows live in the key's b-tree, no second copy by rowid
    # (measured in plain sqlite3: 0.061 s against 0.191 s a run of 48,000
    # values with a row per value; docs/history.md#measured)
    sqlite_with_rowid=False)

def value_count(conn) -> int:  # noqa: ANN001
    """How many values the samples table holds (every repetition)."""
    total = conn.execute(select(func.sum(func.length(samples.c.packed)))).scalar()
    return int(total or 0) // VALUE_BYTES

acks = Table(
    "acks", metadata,
    Column("id", Integer, primary_key=True),
    Column("series_id", Integer, ForeignKey("series.id"), nullable=False),
    Column("commit_sha", String(64), nullable=False),
    Column("note", Text, nullable=False),
    Column("time", Float, nullable=False),
    UniqueConstraint("series_id", "commit_sha", name="acks_key"))

detect_cache = Table(
    "detect_cache", metadata,
    Column("series_id", Integer, ForeignKey("series.id"), primary_key=True),
    Column("branch", String(MAX_NAME), primary_key=True),
    Column("last_run", Integer, nullable=False),
    Column("generation", Integer, nullable=False),
    Column("state", LargeBinary, nullable=False))

detected_runs = Table(
    "detected_runs", metadata,
    Column("branch", String(MAX_NAME), primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id"), primary_key=True))

meta = Table(
    "meta", metadata,
    Column("key", String(100), primary_key=True),
    Column("value", Integer, nullable=False))


def _samples_v1_to_v2(conn) -> None:  # noqa: ANN001 - a Connection
    """Version 1's row per repetition (run_id, series_id, repetition,
    value) becomes a row per (run, series) with the values packed in
    repetition order; the old table and its indexes are dropped."""
    conn.execute(text("DROP INDEX samples_series"))
    conn.execute(text("DROP INDEX samples_run"))
    conn.execute(text("ALTER TABLE samples RENAME TO samples_v1"))
    samples.create(conn)
    with closing(conn.connection.cursor()) as cursor:
        cursor.execute("SELECT run_id, series_id, value FROM samples_v1 "
                       "ORDER BY run_id, series_id, repetition")
        rows = ({"run_id": run, "series_id": series_id,
                 "packed": pack([value for _, _, value in reps])}
                for (run, series_id), reps in groupby(_fetched(cursor), itemgetter(0, 1)))
        while chunk := list(islice(rows, 100_000)):
            conn.execute(samples.insert(), chunk)
    conn.execute(text("DROP TABLE samples_v1"))


def _fetched(cursor) -> Iterator[tuple]:  # noqa: ANN001 - a DB-API cursor
    """The cursor's rows, fetched 100,000 at a time."""
    while batch := cursor.fetchmany(100_000):
        yield from batch


# version -> function(connection) bringing a database of that version to
# the next; `history.py upgrade` runs them in a transaction.
UPGRADES: dict = {1: _samples_v1_to_v2}
