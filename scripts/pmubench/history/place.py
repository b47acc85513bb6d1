"""Where the history is: the --db value read, checked and shown (a SQLite
file's path or a PostgreSQL URL, its password never shown), a SQLite
file's connection, and the messages of a database that cannot be used
(StoreError, busy, reason_of). Standard library only (a server's URL is
read by SQLAlchemy, imported then), so that `history.py ingest` starts
without SQLAlchemy (sqlite_direct.py, pg_direct.py); store.py opens
engines over it."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import sys

from pmubench.history.layout import SCHEMA_VERSION

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
            url = _parsed(db)
            query = {k: ("***" if "pass" in k.lower() else v) for k, v in url.query.items()}
            return url.set(query=query).render_as_string(hide_password=True)
        except ValueError:
            pass
    elif not _url_like(db):
        return db
    scheme = _SCHEME.match(db)
    return (repr(scheme[0].strip() + "...") if scheme else "the --db value") + \
        " (the rest not shown: it may hold a password)"


def server_url(db: str) -> str:
    scheme, rest = db.split(":", 1)
    return "postgresql+psycopg2:" + rest if scheme in ("postgresql", "postgres") else db


def _parsed(db: str):  # noqa: ANN202 - SQLAlchemy's URL
    """SQLAlchemy's reading of a server URL; ValueError when it cannot be
    read. Imported here: only a server needs it (a SQLite ingest starts
    without SQLAlchemy: 0.13 s of CPU)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError
    try:
        return make_url(server_url(db))
    except ArgumentError as e:
        raise ValueError(str(e)) from None


def _check_is_a_path(path: str) -> None:
    """A SQLite --db is a file path, taken literally: '', ':memory:' and
    anything URL-like are refused (SQLite would keep nothing, or read
    'q.db?x=1' as q.db)."""
    if path in ("", ":memory:") or _url_like(path):
        raise StoreError(
            f"--db {shown(path) if path else repr(path)}: neither a file path nor a "
            "PostgreSQL URL; give a file (./NAME when the name holds a colon) or "
            "postgresql://USER@HOST:PORT/DBNAME, in lower case")


def check_not_linked(path: str) -> None:
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
        return  # no parent: check_sqlite_path names it
    if stat.S_ISLNK(st.st_mode) and st.st_uid not in (0, os.geteuid()):
        raise StoreError(f"{path}: its directory {parent} is a symbolic link another "
                         "user owns; give --db a path through directories you trust")


def check_sqlite_path(path: str, create: bool) -> None:
    _check_is_a_path(path)
    check_not_linked(path)
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


def connect_sqlite(path: str) -> sqlite3.Connection:
    """A connection to the SQLite file path, as every history command
    opens one: foreign keys on, 64 MiB of page cache (2 MiB by default: an
    ingest adds to the samples indexes all over, and detect reads every
    series; durability is unchanged, the journal and fsync are SQLite's
    defaults), and no transaction opened behind the caller's back
    (isolation_level None: the caller's BEGIN IMMEDIATE makes reads, DDL
    and writes one transaction). The path goes to sqlite3 as it is (in a
    URL, "?..." would be read as options and open another file)."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA cache_size=-65536")
    conn.isolation_level = None
    return conn


def _password_of(db: str) -> str | None:
    try:
        return _parsed(db).password if is_server(db) else None
    except ValueError:
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


def check_version(db: str, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{shown(db)}: schema version {version} was written by a newer pmubench "
            f"(this history.py reads version {SCHEMA_VERSION}); update pmubench "
            "(git pull) and run the newer scripts/history.py")
    if version < SCHEMA_VERSION:
        raise StoreError(
            f"{shown(db)}: schema version {version} is older than this history.py's "
            f"{SCHEMA_VERSION}; back it up, then run "
            f"`scripts/history.py upgrade --db {shown(db)}`")


def is_database_error(e: BaseException) -> bool:
    """True for an error the database or its driver raised: sqlite3's, and
    SQLAlchemy's and psycopg2's when they were imported (else none of
    theirs can be raised)."""
    kinds: list[type] = [sqlite3.Error]
    for module, name in (("sqlalchemy.exc", "SQLAlchemyError"), ("psycopg2", "Error")):
        if module in sys.modules:
            kinds.append(getattr(sys.modules[module], name))
    return isinstance(e, tuple(kinds))


def version_in(names: set[str], first_row) -> int | None:  # noqa: ANN001 - a callable
    """The schema version of a database whose tables are names, first_row()
    reading schema_version's first row; None when it has no tables at all.
    Raises StoreError for tables that are not a history's."""
    if not names:
        return None
    if "schema_version" not in names:
        raise StoreError("holds tables but no schema_version: not a pmubench history "
                         "database; give --db a history database or a new one")
    row = first_row()
    if row is None:
        raise StoreError("has an empty schema_version table; it was not made by "
                         "history.py")
    if isinstance(row[0], bool) or not isinstance(row[0], int):
        raise StoreError(f"its schema_version holds {str(row[0])[:40]!r}, not a version "
                         "number; it was not made by history.py, or was edited by hand")
    return row[0]
