"""Reading a run file into the history: every repetition of every metric
of every benchmark, in one transaction (a killed ingest leaves nothing),
keyed by the SHA-256 of the file's bytes (the same file twice is one run;
two ingests of it at once into PostgreSQL: one wins, the other finds it)."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
import sqlite3
import subprocess
import time as time_module
from contextlib import closing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pmubench.base import regular_file
from pmubench.runs import benchjson, case_files
from pmubench.history import identity, layout, pg_direct, sqlite_direct

if TYPE_CHECKING:  # history.py ingest imports no SQLAlchemy
    from sqlalchemy.engine import Engine

_SHA = re.compile(r"^[0-9a-fA-F]{4,64}$")


@dataclass
class Prepared:
    """A run file read and checked, nothing written yet."""
    path: str
    content_hash: str
    facts: dict
    identity: str
    backend: str
    time: float | None
    # (benchmark, metric) -> every repetition's value, in file order
    values: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    @property
    def value_count(self) -> int:
        return sum(len(v) for v in self.values.values())


# The latest time a history holds: datetime's own end (year 9999), so that
# every time stored can be shown and charted.
LATEST = dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc).timestamp()


def parse_time(text: str, what: str) -> float:
    """ISO 8601 (a naive one is UTC) or seconds since the epoch, between
    1970 and the year 9999; raises BadInput naming `what` otherwise."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = None
    if seconds is None:
        try:
            when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise benchjson.BadInput(f"{what}: {text!r} is not a time; write ISO 8601 "
                                     "(2026-11-27T15:00:00+00:00) or seconds since "
                                     "1970") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.timezone.utc)
        seconds = when.timestamp()
    if not 0 <= seconds <= LATEST:  # nan, inf and 1e300 too
        raise benchjson.BadInput(f"{what}: {text!r} is not a time between 1970 and the "
                                 "year 9999; give the run's real time (ISO 8601)")
    return seconds


def check_name(name: str, what: str) -> str:
    """A name the history stores (benchmark, metric, machine, branch): at
    most layout.MAX_NAME characters, no NUL, valid Unicode (no lone
    surrogate); the same rule on SQLite and PostgreSQL, checked before
    anything is written. Raises BadInput naming it."""
    shown = ascii(name[:60]) + ("..." if len(name) > 60 else "")
    if len(name) > layout.MAX_NAME:
        raise benchjson.BadInput(f"{what} {shown}: {len(name)} characters, more than the "
                                 f"history keeps ({layout.MAX_NAME}); give it a shorter "
                                 "name (benchmark: ->Name(...))")
    if "\0" in name:
        raise benchjson.BadInput(f"{what} {shown}: holds a NUL character; rename it")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise benchjson.BadInput(f"{what} {shown}: holds a lone surrogate (an \\ud800 "
                                 "escape without its pair), not Unicode text; fix the "
                                 "name") from None
    return name


def _is_plain(run: benchjson.Run, pmubench_families: set[str] | None) -> bool:
    return (pmubench_families is not None
            and run.family not in pmubench_families)


def _check_backends(bench: benchjson.BenchFile, path: str) -> None:
    """A file is one backend's: callgrind counts only with a callgrind
    context (valgrind version and cache geometry known), and either every
    measured pmubench case has them or none has (a plain Google Benchmark
    case in a callgrind run has only valgrind's times)."""
    backend = identity.backend_of(bench.context)
    pmubench_families = case_files.pmubench_families(bench.context)
    ok = [r for r in bench.runs if not r.failed and r.run_type == "iteration"] or \
        [r for r in bench.runs if not r.failed]
    if backend == "callgrind":
        ok = [r for r in ok if not _is_plain(r, pmubench_families)]
    # each metric name once: a file repeats the same few names in every run
    names = {m for r in ok for m in r.metrics}
    simulated_names = {m for m in names if benchjson.is_simulated(m)}
    simulated = [not simulated_names.isdisjoint(r.metrics) for r in ok]
    if any(simulated) and backend != "callgrind":
        raise benchjson.BadInput(
            f"{path}: holds callgrind counts but its context says backend "
            f"{backend!r}: a file mixing backends (merged from a native and a "
            "simulated run?); ingest each backend's own file")
    if backend == "callgrind" and not all(simulated):
        native = ok[simulated.index(False)].name
        raise benchjson.BadInput(
            f"{path}: a callgrind run whose benchmark {native} has no callgrind "
            "counts: a file mixing backends; ingest each backend's own file")


def _collect(bench: benchjson.BenchFile) -> dict[tuple[str, str], list[float]]:
    """Every repetition of every metric; for a benchmark the file holds no
    repetitions of (--benchmark_report_aggregates_only) its median
    aggregate, else its mean, is the one value."""
    with_reps = {r.run_name for r in bench.runs if r.run_type == "iteration"}
    chosen: dict[str, str] = {}
    for run in bench.runs:
        if run.run_type != "iteration" and run.run_name not in with_reps and \
                run.aggregate_name in ("median", "mean") and not run.failed:
            if chosen.get(run.run_name) != "median":
                chosen[run.run_name] = run.aggregate_name
    # per benchmark, then per metric: a (benchmark, metric) tuple made and
    # hashed per value cost a third of this function (48,000 a run)
    by_name: dict[str, dict[str, list[float]]] = {}
    flag = benchjson.LAYOUT_SENSITIVE_FIELD
    for run in bench.runs:
        wanted = (run.run_type == "iteration" or
                  chosen.get(run.run_name) == run.aggregate_name)
        if run.failed or not wanted:
            continue
        per = by_name.setdefault(run.run_name, {})
        for metric, value in run.metrics.items():
            per.setdefault(metric, []).append(value)
        if run.raw and flag in run.raw and benchjson.is_layout_sensitive(run.raw):
            # Kept as a series of 1s: detect and judge read it (series.all_series).
            per.setdefault(flag, []).append(1.0)
    return {(name, metric): v for name, per in by_name.items() for metric, v in per.items()}


# A run file larger than this is refused before it is parsed.
MAX_RUN_BYTES = 256 << 20


def _read_once(path: str) -> tuple[str, benchjson.BenchFile]:
    """The file's SHA-256 and its parsed runs, both of the one read of it."""
    try:
        data = regular_file.read_capped(path, MAX_RUN_BYTES)
    except regular_file.Refused as e:
        raise benchjson.BadInput(str(e)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise benchjson.BadInput(f"{path}: cannot read: {e}") from None
    bench = benchjson.parse_text(text, path)
    return hashlib.sha256(data).hexdigest(), bench


def _check_names(values: dict[tuple[str, str], list[float]], path: str) -> None:
    """Each name once (a file repeats its metrics' names in every benchmark),
    a benchmark's before its metrics'."""
    seen: set[str] = set()
    for benchmark, metric in values:
        if benchmark not in seen:
            check_name(benchmark, f"{path}: benchmark")
            seen.add(benchmark)
        if metric not in seen:
            check_name(metric, f"{path}: benchmark {ascii(benchmark[:60])} metric")
            seen.add(metric)


def prepare(path: str) -> Prepared:
    """Reads and checks one run file; raises benchjson.BadInput."""
    digest, bench = _read_once(path)
    _check_backends(bench, path)
    facts = identity.facts_of(bench.context)
    date = bench.context.get("date")
    when = parse_time(date, f"{path}: context.date") if isinstance(date, str) else None
    values = _collect(bench)
    if not values:
        raise benchjson.BadInput(f"{path}: every benchmark failed; nothing to keep")
    _check_names(values, path)
    return Prepared(path, digest, facts, identity.identity_of(facts),
                    identity.backend_of(bench.context), when, values)


def git_checkout(cwd: str | None = None) -> tuple[str, str] | None:
    """(HEAD's commit, its branch) of the checkout cwd is in, or None."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=cwd, capture_output=True,
                                  text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None
    commit = git("rev-parse", "HEAD")
    if not commit:
        return None
    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    return commit, (branch if branch and branch != "HEAD" else "")


def check_commit(commit: str) -> str:
    if not _SHA.match(commit):
        raise benchjson.BadInput(f"--commit {commit!r}: not a commit SHA; give the "
                                 "hexadecimal id (git rev-parse HEAD)")
    return commit.lower()


class _Db:
    """A DB-API connection in a transaction (sqlite3's, or psycopg2's under
    SQLAlchemy), its SQL written with qmark placeholders: SQLAlchemy's
    per-statement and per-row work cost more than the database's own
    (cProfile: 0.25 s of 0.9 s a run of 48,000 values), and history.py
    ingest imports no SQLAlchemy at all (sqlite_direct.py, pg_direct.py)."""

    def __init__(self, dbapi, dialect: str) -> None:  # noqa: ANN001 - a DB-API connection
        self.dbapi, self.sqlite = dbapi, dialect == "sqlite"

    def sql(self, text: str) -> str:
        return text if self.sqlite else text.replace("?", "%s")

    def rows(self, text: str, params: tuple = ()) -> list[tuple]:
        with closing(self.dbapi.cursor()) as cursor:
            cursor.execute(self.sql(text), params)
            return cursor.fetchall()

    def change(self, text: str, params: tuple = ()) -> int:
        """Runs one INSERT or UPDATE; the rows it changed."""
        with closing(self.dbapi.cursor()) as cursor:
            cursor.execute(self.sql(text), params)
            return cursor.rowcount


def _machine_id(db: _Db, prepared: Prepared, name: str | None) -> int:
    """The machines row of the run's identity and name (made when new);
    a name already given to other facts gets the identity's digits."""
    if name is None:
        rows = db.rows("SELECT name FROM machines WHERE identity = ? ORDER BY id",
                       (prepared.identity,))
        name = rows[0][0] if rows else identity.default_name(prepared.facts,
                                                             prepared.identity)
    elif db.rows("SELECT id FROM machines WHERE name = ? AND identity != ?",
                 (name, prepared.identity)):
        name = f"{name}-{prepared.identity[:8]}"
    db.change("INSERT INTO machines (identity, name, facts) VALUES (?, ?, ?) "
              "ON CONFLICT DO NOTHING",
              (prepared.identity, name, json.dumps(prepared.facts, sort_keys=True)))
    return db.rows("SELECT id FROM machines WHERE identity = ? AND name = ?",
                   (prepared.identity, name))[0][0]


def _series_ids(db: _Db, machine: int, keys: list[tuple[str, str]],
                known: dict | None = None) -> dict:
    """The series ids of keys, made when new (a concurrent ingest may make
    the same ones: ON CONFLICT DO NOTHING, then read them back); known, the
    machine's ids a committed ingest saw, when it holds every key."""
    if known is not None and all(k in known for k in keys):
        return known
    ids = _machine_series(db, machine)
    missing = [(machine, b, m) for b, m in keys if (b, m) not in ids]
    if not missing:
        return ids
    insert = "INSERT INTO series (machine_id, benchmark, metric) VALUES "
    with closing(db.dbapi.cursor()) as cursor:
        if db.sqlite:
            cursor.executemany(insert + "(?, ?, ?) ON CONFLICT DO NOTHING", missing)
        else:  # psycopg2's multi-row VALUES, as SQLAlchemy's values_only mode
            from psycopg2.extras import execute_values
            execute_values(cursor, insert + "%s ON CONFLICT DO NOTHING", missing,
                           page_size=1000)
    return _machine_series(db, machine)


def _machine_series(db: _Db, machine: int) -> dict:
    """(benchmark, metric) -> series id of the machine's series."""
    return {(b, m): i for i, b, m in db.rows(
        "SELECT id, benchmark, metric FROM series WHERE machine_id = ?", (machine,))}


@dataclass
class _Written:
    run: int
    machine: int
    ids: dict  # (benchmark, metric) -> series id of the machine


def _write(db: _Db, prepared: Prepared, commit: str, branch: str,
           when: float, name: str | None, known: dict | None) -> _Written | None:
    """The run's rows, in the caller's transaction; None when the database
    already holds this file."""
    machine = _machine_id(db, prepared, name)
    done = db.change(
        "INSERT INTO runs (content_hash, machine_id, commit_sha, branch, time, backend, "
        "source, ingested) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (prepared.content_hash, machine, commit, branch, when, prepared.backend,
         prepared.path, time_module.time()))
    if done == 0:
        return None
    run = db.rows("SELECT id FROM runs WHERE content_hash = ?", (prepared.content_hash,))[0][0]
    ids = _series_ids(db, machine, list(prepared.values),
                      None if known is None else known.get(machine))
    _insert_samples(db, _sample_rows(run, ids, prepared.values))
    return _Written(run, machine, ids)


def _committed(written: _Written | None, known: dict | None) -> int | None:
    """The run id of a committed write; known (machine id -> its series
    ids) carries the ids of one write to the next of a command: series are
    never deleted, so an id once committed stays right, and the runs after
    the first skip reading every id of the machine again (0.02 s a run of
    16,000 series)."""
    if written is None:
        return None
    if known is not None:
        known[written.machine] = written.ids
    return written.run


def write(engine: Engine, prepared: Prepared, commit: str, branch: str,
          when: float, name: str | None, known: dict | None = None) -> int | None:
    """Stores the run in one transaction of the engine (store.open_store);
    returns its id, or None when the database already holds this file."""
    with engine.begin() as conn:
        written = _write(_Db(conn.connection, conn.dialect.name), prepared, commit,
                         branch, when, name, known)
    return _committed(written, known)


def write_direct(conn, prepared: Prepared, commit: str, branch: str,  # noqa: ANN001
                 when: float, name: str | None, known: dict | None = None) -> int | None:
    """write() into a history opened without SQLAlchemy: a SQLite file by
    sqlite_direct.open_for_ingest (a sqlite3 connection), a server by
    pg_direct.open_for_ingest (psycopg2's)."""
    direct = sqlite_direct if isinstance(conn, sqlite3.Connection) else pg_direct
    dialect = "sqlite" if direct is sqlite_direct else "postgresql"
    with direct.transaction(conn):
        written = _write(_Db(conn, dialect), prepared, commit, branch, when, name, known)
    return _committed(written, known)


def _sample_rows(run: int, ids: dict, values: dict) -> list[tuple]:
    """(run id, series id, packed values) of every series of the run."""
    pack = layout.pack
    return [(run, ids[key], pack(reps)) for key, reps in values.items()]


_SAMPLE_COLUMNS = "samples (run_id, series_id, packed)"


def _insert_samples(db: _Db, rows: list[tuple]) -> None:
    """rows through the driver: SQLite's executemany of one prepared
    INSERT, PostgreSQL's COPY (one stream, no statement per row)."""
    with closing(db.dbapi.cursor()) as cursor:
        if not db.sqlite:
            # bytea's hex form, its backslash doubled for COPY's text format
            text = "".join(f"{r}\t{s}\t\\\\x{p.hex()}\n" for r, s, p in rows)
            cursor.copy_expert(f"COPY {_SAMPLE_COLUMNS} FROM STDIN", io.StringIO(text))
        else:
            cursor.executemany(f"INSERT INTO {_SAMPLE_COLUMNS} VALUES (?, ?, ?)", rows)
