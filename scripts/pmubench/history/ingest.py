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
import subprocess
import time as time_module
from contextlib import closing
from dataclasses import dataclass, field

from sqlalchemy import and_, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Engine

from pmubench.base import regular_file
from pmubench.runs import benchjson
from pmubench.history import identity, schema

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
    most schema.MAX_NAME characters, no NUL, valid Unicode (no lone
    surrogate); the same rule on SQLite and PostgreSQL, checked before
    anything is written. Raises BadInput naming it."""
    shown = ascii(name[:60]) + ("..." if len(name) > 60 else "")
    if len(name) > schema.MAX_NAME:
        raise benchjson.BadInput(f"{what} {shown}: {len(name)} characters, more than the "
                                 f"history keeps ({schema.MAX_NAME}); give it a shorter "
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


def _check_backends(bench: benchjson.BenchFile, path: str) -> None:
    """A file is one backend's: callgrind counts only with a callgrind
    context (valgrind version and cache geometry known), and either every
    measured benchmark has them or none has."""
    backend = identity.backend_of(bench.context)
    ok = [r for r in bench.runs if not r.failed and r.run_type == "iteration"] or \
        [r for r in bench.runs if not r.failed]
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


def _insert(conn, table):  # noqa: ANN001 - the dialect's INSERT ... ON CONFLICT
    if conn.dialect.name == "postgresql":
        # imported here: 0.011 s of every SQLite command's start-up
        from sqlalchemy.dialects import postgresql
        return postgresql.insert(table)
    return sqlite.insert(table)


def machine_id(conn, prepared: Prepared, name: str | None) -> tuple[int, str]:  # noqa: ANN001
    """The machines row of the run's identity and name (made when new);
    a name already given to other facts gets the identity's digits."""
    m = schema.machines
    if name is None:
        row = conn.execute(select(m.c.name).where(m.c.identity == prepared.identity)
                           .order_by(m.c.id)).first()
        name = row[0] if row else identity.default_name(prepared.facts, prepared.identity)
    else:
        other = conn.execute(select(m.c.id).where(and_(
            m.c.name == name, m.c.identity != prepared.identity))).first()
        if other:
            name = f"{name}-{prepared.identity[:8]}"
    conn.execute(_insert(conn, m).values(
        identity=prepared.identity, name=name,
        facts=json.dumps(prepared.facts, sort_keys=True)).on_conflict_do_nothing())
    row = conn.execute(select(m.c.id).where(and_(
        m.c.identity == prepared.identity, m.c.name == name))).one()
    return row[0], name


def _series_ids(conn, machine: int, keys: list[tuple[str, str]],  # noqa: ANN001
                known: dict | None = None) -> dict:
    """The series ids of keys, made when new (a concurrent ingest may make
    the same ones: ON CONFLICT DO NOTHING, then read them back); known, the
    machine's ids a committed ingest saw, when it holds every key."""
    s = schema.series
    if known is not None and all(k in known for k in keys):
        return known
    ids = _machine_series(conn, machine)
    missing = [k for k in keys if k not in ids]
    if not missing:
        return ids
    if conn.dialect.name == "sqlite":
        # the driver's executemany: SQLAlchemy's parameter dict per series
        # cost 0.08 s of a first run's 16,000 (cProfile)
        with closing(conn.connection.cursor()) as cursor:
            cursor.executemany("INSERT INTO series (machine_id, benchmark, metric) VALUES "
                               "(?, ?, ?) ON CONFLICT DO NOTHING",
                               [(machine, b, m) for b, m in missing])
    else:
        conn.execute(_insert(conn, s).on_conflict_do_nothing(),
                     [{"machine_id": machine, "benchmark": b, "metric": m} for b, m in missing])
    return _machine_series(conn, machine)


def _machine_series(conn, machine: int) -> dict:  # noqa: ANN001
    """(benchmark, metric) -> series id of the machine's series, read by the
    driver's cursor: a SQLAlchemy Row per series cost 0.1 s a run of 16,000."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    with closing(conn.connection.cursor()) as cursor:
        cursor.execute("SELECT id, benchmark, metric FROM series WHERE machine_id = "
                       + mark, (machine,))
        return {(b, m): i for i, b, m in cursor.fetchall()}


def write(engine: Engine, prepared: Prepared, commit: str, branch: str,
          when: float, name: str | None, known: dict | None = None) -> int | None:
    """Stores the run in one transaction; returns its id, or None when the
    database already holds this file. known (machine id -> its series ids)
    carries the ids of one write to the next of a command: series are never
    deleted, so an id once committed stays right, and the runs after the
    first skip reading every id of the machine again (0.02 s a run of 16,000
    series)."""
    with engine.begin() as conn:
        machine, _ = machine_id(conn, prepared, name)
        r = schema.runs
        done = conn.execute(_insert(conn, r).values(
            content_hash=prepared.content_hash, machine_id=machine, commit_sha=commit,
            branch=branch, time=when, backend=prepared.backend, source=prepared.path,
            ingested=time_module.time()).on_conflict_do_nothing())
        if done.rowcount == 0:
            return None
        run = conn.execute(select(r.c.id).where(
            r.c.content_hash == prepared.content_hash)).scalar_one()
        ids = _series_ids(conn, machine, list(prepared.values),
                          None if known is None else known.get(machine))
        _insert_samples(conn, _sample_rows(run, ids, prepared.values))
    if known is not None:  # committed
        known[machine] = ids
    return run


def _sample_rows(run: int, ids: dict, values: dict) -> list[tuple]:
    """(run id, series id, packed values) of every series of the run."""
    pack = schema.pack
    return [(run, ids[key], pack(reps)) for key, reps in values.items()]


_SAMPLE_COLUMNS = "samples (run_id, series_id, packed)"


def _insert_samples(conn, rows: list[tuple]) -> None:  # noqa: ANN001
    """rows through the driver, on the transaction's connection: SQLite's
    executemany of one prepared INSERT, PostgreSQL's COPY (one stream, no
    statement per row). SQLAlchemy's per-row parameter handling cost more
    than the database's own work (cProfile: 0.25 s of 0.9 s per run of
    48,000 values)."""
    with closing(conn.connection.cursor()) as cursor:
        if conn.dialect.name == "postgresql":
            # bytea's hex form, its backslash doubled for COPY's text format
            text = "".join(f"{r}\t{s}\t\\\\x{p.hex()}\n" for r, s, p in rows)
            cursor.copy_expert(f"COPY {_SAMPLE_COLUMNS} FROM STDIN", io.StringIO(text))
        else:
            cursor.executemany(f"INSERT INTO {_SAMPLE_COLUMNS} VALUES (?, ?, ?)", rows)
