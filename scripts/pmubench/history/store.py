"""Opening the history database: `--db PATH` (a SQLite file, made on
first ingest) or `--db postgresql://...` (psycopg2; user, password, host
from the URL or libpq's PG* environment variables). Every failure is a
StoreError naming the database (its password never shown) and the fix;
the command line turns it into exit 2 before any work starts."""

from __future__ import annotations

import os
import re
import sqlite3
import stat

from sqlalchemy import create_engine, event, inspect, select, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from pmubench.history import schema

SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(Exception):
    """A database that cannot be used; the message names it and the fix."""


def is_server(db: str) -> bool:
    return db.startswith(("postgresql:", "postgresql+psycopg2:", "postgres:"))


# What may hold a credential: a scheme ("pgsql:", "PostgreSQL://"), a
# "//" authority, USER:PASSWORD@, or blanks around the text.
_SCHEME = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.\-]*:/*")
_CREDENTIAL = re.compile(r"//|:[^@]*@|^\s|\s$")


def _url_like(db: str) -> bool:
    return bool(_SCHEME.match(db) or _CREDENTIAL.search(db))


def shown(db: str) -> str:
    """The database as every message shows it: a server URL without its
    password (in the user part or the query), a path as given, and anything
    else that may hold a password cut after its scheme, parsed or not."""
    if is_server(db):
        try:
            url = make_url(_server_url(db))
            query = {k: ("***" if "pass" in k.lower() else v) for k, v in url.query.items()}
            return url.set(query=query).render_as_string(hide_password=True)
        except (ArgumentError, ValueError):
            pass
    elif not _url_like(db):
        return db
    scheme = _SCHEME.match(db)
    return (repr(scheme[0].strip() + "...") if scheme else "the --db value") + \
        " (the rest not shown: it may hold a password)"


def _server_url(db: str) -> str:
    scheme, rest = db.split(":", 1)
    return "postgresql+psycopg2:" + rest if scheme in ("postgresql", "postgres") else db


def _check_is_a_path(path: str) -> None:
    """A SQLite --db is a file path, taken literally: '', ':memory:' and
    anything URL-like are refused (SQLite would keep nothing, or read
    'q.db?x=1' as q.db)."""
    if path in ("", ":memory:") or _url_like(path):
        raise StoreError(
            f"--db {shown(path) if path else repr(path)}: neither a file path nor a "
            "PostgreSQL URL; give a file (./NAME when the name holds a colon) or "
            "postgresql://USER@HOST:PORT/DBNAME, in lower case")


def _check_not_linked(path: str) -> None:
    """Refuses a symbolic link as the database file, and a linked parent
    directory another user owns: either may have been planted to make this
    user write where its owner chose (symlink(7), protected_symlinks)."""
    if os.path.islink(path):
        raise StoreError(f"{path}: is a symbolic link; give --db the database file "
                         "itself, not a link to it")
    parent = os.path.dirname(path.rstrip("/")) or "."
    try:
        st = os.lstat(parent)
    except OSError:
        return  # no parent: _check_sqlite_path names it
    if stat.S_ISLNK(st.st_mode) and st.st_uid not in (0, os.geteuid()):
        raise StoreError(f"{path}: its directory {parent} is a symbolic link another "
                         "user owns; give --db a path through directories you trust")


def _check_sqlite_path(path: str, create: bool) -> None:
    _check_is_a_path(path)
    _check_not_linked(path)
    if os.path.isdir(path):
        raise StoreError(f"{path}: is a directory; give --db a file, e.g. {path}/history.db")
    if os.path.exists(path):
        head = _head_of_regular_file(path)
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


def _head_of_regular_file(path: str) -> bytes:
    """The first bytes of an existing --db: a regular file, opened without
    following a link or waiting on a FIFO's writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise StoreError(f"{path}: cannot read: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError(f"{path}: is not a regular file; give --db a SQLite file")
        return f.read(16)


# Seconds a SQLite statement waits for another process's lock (sqlite3's
# timeout: its busy handler) before it gives up as busy.
BUSY_TIMEOUT = 60.0


def _sqlite_engine(path: str) -> Engine:
    # The path goes to sqlite3 as it is: in a sqlite:/// URL, SQLAlchemy
    # would read "?..." as options and open another file.
    engine = create_engine("sqlite://", future=True, poolclass=NullPool,
                           creator=lambda: sqlite3.connect(path, timeout=BUSY_TIMEOUT))

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record):  # noqa: ANN001 - SQLAlchemy's hook
        dbapi_connection.execute("PRAGMA foreign_keys=ON")
        # 64 MiB of page cache (2 MiB by default): an ingest adds to the
        # samples indexes all over, and detect reads every series; durability
        # is unchanged (the journal and fsync are SQLite's defaults).
        dbapi_connection.execute("PRAGMA cache_size=-65536")
        # pysqlite opens a transaction only before DML; BEGIN on our own so
        # that reads, DDL and writes of one `with engine.begin()` are one.
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001 - SQLAlchemy's hook
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _password_of(db: str) -> str | None:
    try:
        return make_url(_server_url(db)).password if is_server(db) else None
    except (ArgumentError, ValueError):
        return None


def reason_of(db: str, e: Exception) -> str:
    """The first line of a database error, without the password of db
    (a driver may quote the connection string), as messages show it."""
    orig = getattr(e, "orig", None) or e
    lines = str(orig).strip().splitlines()
    reason = lines[0] if lines else type(orig).__name__
    secret = _password_of(db)
    return reason.replace(secret, "***") if secret else reason


def busy(db: str, e: Exception) -> str | None:
    """The message for a SQLite database another process keeps locked,
    or None when e is another error."""
    if "database is locked" not in reason_of(db, e):
        return None
    return (f"{db}: busy: another process has held a lock on it for over "
            f"{BUSY_TIMEOUT:g} s (a history.py ingest, exclude or upgrade still "
            f"running, or a sqlite3 shell with an open transaction: `fuser {db}` "
            "lists them); wait for it to finish, then run again")


def _server_engine(db: str) -> Engine:
    try:
        return create_engine(_server_url(db), future=True, pool_pre_ping=True,
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
        _check_sqlite_path(db, create)
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
        _check_not_linked(db)  # not swapped for a link while sqlite3 opened it
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
    if isinstance(row[0], bool) or not isinstance(row[0], int):
        raise StoreError(f"its schema_version holds {str(row[0])[:40]!r}, not a version "
                         "number; it was not made by history.py, or was edited by hand")
    return row[0]


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
