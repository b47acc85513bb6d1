"""Opening the history database: `--db PATH` (a SQLite file, made on
first ingest) or `--db postgresql://...` (psycopg2; user, password, host
from the URL or libpq's PG* environment variables). Every failure is a
StoreError naming the database (its password never shown) and the fix;
the command line turns it into exit 2 before any work starts."""

from __future__ import annotations

import os

from sqlalchemy import create_engine, event, inspect, select, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from pmubench.history import schema

SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(Exception):
    """A database that cannot be used; the message names it and the fix."""


def is_server(db: str) -> bool:
    return db.startswith(("postgresql:", "postgresql+psycopg2:", "postgres:"))


def shown(db: str) -> str:
    """The database as messages show it: a URL without its password."""
    if not is_server(db):
        return db
    try:
        return make_url(_server_url(db)).render_as_string(hide_password=True)
    except ArgumentError:
        return "the --db URL"


def _server_url(db: str) -> str:
    scheme, rest = db.split(":", 1)
    return "postgresql+psycopg2:" + rest if scheme in ("postgresql", "postgres") else db


def _check_sqlite_path(path: str, create: bool) -> None:
    if os.path.isdir(path):
        raise StoreError(f"{path}: is a directory; give --db a file, e.g. {path}/history.db")
    if os.path.exists(path):
        try:
            with open(path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise StoreError(f"{path}: cannot read: {e.strerror}") from None
        if head and head != SQLITE_MAGIC:
            raise StoreError(f"{path}: is not a SQLite database (it does not start with "
                             "the SQLite header); give --db a history database, or a "
                             "new file name to start one")
        return
    if not create:
        raise StoreError(f"{path}: no such database; `history.py ingest --db {path} RUN.json` "
                         "makes one")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise StoreError(f"{path}: directory {parent} does not exist; create it first")


def _sqlite_engine(path: str) -> Engine:
    engine = create_engine(f"sqlite:///{path}", future=True,
                           connect_args={"timeout": 60})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record):  # noqa: ANN001 - SQLAlchemy's hook
        dbapi_connection.execute("PRAGMA foreign_keys=ON")
        # pysqlite opens a transaction only before DML; BEGIN on our own so
        # that reads, DDL and writes of one `with engine.begin()` are one.
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001 - SQLAlchemy's hook
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def connect(db: str, create: bool = False) -> Engine:
    """The engine for --db, connected once to prove it works."""
    if is_server(db):
        try:
            engine = create_engine(_server_url(db), future=True, pool_pre_ping=True,
                                   executemany_mode="values_only")
        except (ArgumentError, ValueError) as e:
            raise StoreError(f"{shown(db)}: not a database URL ({e}); write "
                             "postgresql://USER@HOST:PORT/DBNAME") from None
    else:
        _check_sqlite_path(db, create)
        engine = _sqlite_engine(db)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except DBAPIError as e:
        reason = str(e.orig).strip().splitlines()[0] if e.orig else str(e)
        fix = ("check the server runs and accepts this user (the URL or PGHOST, PGPORT, "
               "PGUSER, PGPASSWORD)" if is_server(db) else
               "check the file is a SQLite database and readable")
        raise StoreError(f"{shown(db)}: cannot connect: {reason}; {fix}") from None
    return engine


def version_of(conn) -> int | None:  # noqa: ANN001 - a Connection
    """The database's schema version; None when it has no tables at all.
    Raises StoreError for tables that are not a history's."""
    names = set(inspect(conn).get_table_names())
    if not names:
        return None
    if "schema_version" not in names:
        raise StoreError("holds tables but no schema_version: not a pmubench history "
                         "database; give --db a history database or a new one")
    row = conn.execute(select(schema.schema_version.c.version)).first()
    if row is None:
        raise StoreError("has an empty schema_version table; it was not made by "
                         "history.py")
    return int(row[0])


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
        raise StoreError(f"{shown(db)}: cannot read its tables: "
                         f"{str(getattr(e, 'orig', e)).strip().splitlines()[0]}") from None
    check_version(db, version)
    return engine


def check_version(db: str, version: int) -> None:
    if version > schema.SCHEMA_VERSION:
        raise StoreError(
            f"{shown(db)}: schema version {version} was written by a newer pmubench "
            f"(this history.py reads version {schema.SCHEMA_VERSION}); update pmubench "
            "(git pull) and run the newer scripts/history.py")
    if version < schema.SCHEMA_VERSION:
        raise StoreError(
            f"{shown(db)}: schema version {version} is older than this history.py's "
            f"{schema.SCHEMA_VERSION}; back it up, then run "
            f"`scripts/history.py upgrade --db {shown(db)}`")


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
