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
- samples: every repetition of every metric of every run.
- acks: a change point marked expected (series, commit, note).
- detect_cache: per (series, branch) the last detection and what it saw,
  so detect after one new run recomputes only the series it touched.
- detected_runs: the runs detect has seen, per branch (the new ones are
  the branch's runs not in it: a run id given out before a later one but
  committed after it is not missed).
- meta: counters (the exclusion generation that invalidates the cache).
"""

from __future__ import annotations

from sqlalchemy import (Column, Float, ForeignKey, Index, Integer, LargeBinary,
                        MetaData, String, Table, Text, UniqueConstraint)

SCHEMA_VERSION = 1

# The longest name (benchmark, metric, machine, branch) kept, on SQLite and
# PostgreSQL alike: the VARCHAR(200) columns' width, and short enough that
# a series_key index row fits PostgreSQL's b-tree page (ingest checks it).
MAX_NAME = 200

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
    Column("repetition", Integer, nullable=False),
    Column("value", Float, nullable=False),
    Index("samples_series", "series_id", "run_id"),
    Index("samples_run", "run_id"))

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

# version -> function(connection) bringing a database of that version to
# the next; `history.py upgrade` runs them in a transaction.
UPGRADES: dict = {}
