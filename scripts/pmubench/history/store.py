"""Opening the history database as a SQLAlchemy engine: `--db PATH` (a
SQLite file, made on first ingest) or `--db postgresql://...` (psycopg2;
user, password, host from the URL or libpq's PG* environment variables).
Every failure is a StoreError naming the database (its password never
shown) and the fix; the command line turns it into exit 2 before any work
starts. Reading and checking --db is place.py's (its names are this
module's too); `history.py ingest` opens the database without SQLAlchemy
(sqlite_direct.py, pg_direct.py), and through an engine only what those
cannot open."""

from __future__ import annotations

from sqlalchemy import create_engine, event, inspect, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from pmubench.history import place, schema
from pmubench.history.place import (StoreError, busy, check_version,  # noqa: F401
                                    is_server, reason_of, shown)


def _sqlite_engine(path: str) -> Engine:
    # place.connect_sqlite: the pragmas, and no transaction pysqlite opens
    # on its own; BEGIN here, so that reads, DDL and writes of one
    # `with engine.begin()` are one.
    engine = create_engine("sqlite://", future=True, poolclass=NullPool,
                           creator=lambda: place.connect_sqlite(path))

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001 - SQLAlchemy's hook
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _server_engine(db: str) -> Engine:
    try:
        return create_engine(place.server_url(db), future=True, pool_pre_ping=True,
                             executemany_mode="values_only")
    except (ArgumentError, ValueError):
        # their messages quote the URL, password and all
        raise StoreError(f"{shown(db)}: not a database URL that can be read (a port "
                         "that is not a number? an IPv6 host without its ]?); write "
                         "postgresql://USER@HOST:PORT/DBNAME") from None


def connect(db: str, create: bool = False) -> Engine:
    """The engine for --db, connected once to prove it works."""
    if is_server(db):
        engine = _server_engine(db)
    else:
        place.check_sqlite_path(db, create)
        engine = _sqlite_engine(db)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except (DBAPIError, ValueError) as e:
        fix = ("check the server runs and accepts this user (the URL or PGHOST, PGPORT, "
               "PGUSER, PGPASSWORD)" if is_server(db) else
               "check the file is a SQLite database and readable")
        raise StoreError(busy(db, e) or
                         f"{shown(db)}: cannot connect: {reason_of(db, e)}; {fix}") from None
    if not is_server(db):
        place.check_not_linked(db)  # not swapped for a link while sqlite3 opened it
    return engine


def version_of(conn) -> int | None:  # noqa: ANN001 - a Connection
    """The database's schema version; None when it has no tables at all.
    Raises StoreError for tables that are not a history's."""
    return place.version_in(set(inspect(conn).get_table_names()), lambda: conn.execute(
        select(schema.schema_version.c.version)).first())


def _lock_schema(conn, server: bool) -> None:  # noqa: ANN001
    if server:  # two first ingests at once: one makes the tables
        conn.execute(text("SELECT pg_advisory_xact_lock(4242001)"))


def open_store(db: str, create: bool = False) -> Engine:
    """Connects and checks the schema version; with create, a database
    without tables gets this version's."""
    engine = connect(db, create)
    try:
        with engine.begin() as conn:
            _lock_schema(conn, is_server(db))
            version = version_of(conn)
            if version is None:
                if not create:
                    raise StoreError("is empty; `history.py ingest` fills it")
                schema.metadata.create_all(conn)
                conn.execute(schema.schema_version.insert().values(
                    version=schema.SCHEMA_VERSION))
                return engine
    except StoreError as e:
        raise StoreError(f"{shown(db)}: {e}") from None
    except SQLAlchemyError as e:
        raise StoreError(busy(db, e) or
                         f"{shown(db)}: cannot read its tables: {reason_of(db, e)}") from None
    check_version(db, version)
    return engine


def upgrade(db: str) -> tuple[int, int]:
    """Brings the database to SCHEMA_VERSION in one transaction; returns
    (from, to). A newer database is refused."""
    engine = connect(db)
    with engine.begin() as conn:
        _lock_schema(conn, is_server(db))
        try:
            version = version_of(conn)
        except StoreError as e:
            raise StoreError(f"{shown(db)}: {e}") from None
        if version is None:
            raise StoreError(f"{shown(db)}: is empty; nothing to upgrade")
        if version > schema.SCHEMA_VERSION:
            check_version(db, version)
        start = version
        while version < schema.SCHEMA_VERSION:
            step = schema.UPGRADES.get(version)
            if step is None:
                raise StoreError(f"{shown(db)}: no upgrade from schema version {version}; "
                                 "start a new database")
            step(conn)
            version += 1
        conn.execute(schema.schema_version.update().values(version=version))
    return start, version


def acked(conn) -> dict:  # noqa: ANN001
    """(series id, commit) -> note of every acknowledged change point."""
    a = schema.acks
    return {(s, c): n for s, c, n in conn.execute(select(a.c.series_id, a.c.commit_sha,
                                                         a.c.note))}
