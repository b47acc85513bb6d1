"""Keeping a SQLite history on a git branch of its own (CI's store), so
that no failure ever loses it: `fetch` tells a branch that does not exist
from a remote that cannot be read, `store` pushes only over the very commit
that `fetch` saw (git's --force-with-lease) and never replaces a history by
one with fewer runs, or one past the forge's file-size limit, without
saying so, and `gaps` lists the commits that have no run.

Standard library only: git is run as a child process; the database is read
with Python's sqlite3, read-only.
"""

from __future__ import annotations

import json
import lzma
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import asdict, dataclass

DB_FILE = "history.db"
# The branch holds the database xz-compressed: a history of times and counts
# takes a fifth of the bytes (measured in docs/history.md), so five times as
# many values fit under the forge's file limit.
PACKED_FILE = "history.db.xz"
# GitHub refuses a pushed file over 100 MB (its documented limit); stop
# below it, warn at WARN_FRACTION of it.
DEFAULT_MAX_BYTES = 95 * 1024 * 1024
WARN_FRACTION = 0.8
# ls-remote --exit-code: 2 when the remote answered and has no such ref.
LS_REMOTE_NO_REF = 2
_CREDENTIAL = re.compile(r"(?i)([a-z][a-z0-9+.-]*://)[^/@\s]*@")


class BranchError(Exception):
    """A step that must fail the CI job; the message says why and what to do."""


@dataclass
class Fetched:
    """What `fetch` saw, kept in a small JSON file for `store`: the branch's
    commit (None when the branch did not exist) and the history's size."""
    branch_sha: str | None
    runs: int
    values: int
    bytes: int


def redacted(text: str) -> str:
    """text with every URL's user and password removed (a CI remote holds a
    token: `https://x-access-token:TOKEN@host/...`)."""
    return _CREDENTIAL.sub(r"\1***@", text)


def _git(args: list[str], cwd: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env)


def _said(proc: subprocess.CompletedProcess) -> str:
    return redacted(proc.stderr.decode(errors="replace").strip())


def remote_branch(remote: str, branch: str) -> str | None:
    """The commit `branch` points to on `remote`, None when the remote has no
    such branch; BranchError when the remote could not be read at all."""
    ref = f"refs/heads/{branch}"
    proc = _git(["ls-remote", "--exit-code", remote, ref])
    if proc.returncode == LS_REMOTE_NO_REF:
        return None
    if proc.returncode != 0:
        raise BranchError(
            f"cannot read {redacted(remote)} (git ls-remote exit {proc.returncode}: "
            f"{_said(proc)}); nothing was fetched, and the job must not store a history "
            "over one it could not read: fix the remote or the credentials and run again")
    for line in proc.stdout.decode().splitlines():
        sha, _, name = line.partition("\t")
        if name == ref:
            return sha
    raise BranchError(f"git ls-remote {redacted(remote)} {ref} answered no commit")


def _query(db: str, sql: str, params: tuple = ()) -> list[tuple]:
    """The rows of one query of the SQLite history `db`, opened read-only;
    BranchError naming the file when it is not one."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as e:
        raise BranchError(f"{db}: cannot read it as a history database ({e})") from None


# The values a samples table holds: version 1 had a row per value, version
# 2 a row per (run, series) of packed float64s (schema.py).
_VALUES_OF = {1: "SELECT count(*) FROM samples",
              2: "SELECT coalesce(sum(length(packed)), 0) / 8 FROM samples"}


def history_size(db: str) -> tuple[int, int]:
    """(runs, values) of the SQLite history `db`, of any schema version."""
    rows = _query(db, "SELECT version FROM schema_version")
    count = _VALUES_OF.get(rows[0][0] if rows else None)
    if count is None:
        raise BranchError(f"{db}: schema version {rows[0][0] if rows else None} is not one "
                          "this history_branch.py reads; update pmubench")
    (runs, values), = _query(db, f"SELECT (SELECT count(*) FROM runs), ({count})")
    return runs, values


def _blob(commit: str) -> bytes:
    """The database of `commit` (fetched into the current repository), from
    history.db.xz, or history.db as an older recipe stored it."""
    for name, unpack in ((PACKED_FILE, lzma.decompress), (DB_FILE, bytes)):
        proc = _git(["cat-file", "blob", f"{commit}:{name}"])
        if proc.returncode == 0:
            try:
                return unpack(proc.stdout)
            except lzma.LZMAError as e:
                raise BranchError(f"{name} of the history branch's commit {commit} is "
                                  f"damaged ({e}); nothing was fetched") from None
    raise BranchError(f"the history branch's commit {commit} has neither {PACKED_FILE} nor "
                      f"{DB_FILE}; it is not a history branch: name another branch, or move "
                      "that one away")


def _write_whole(path: str, data: bytes) -> None:
    """data written to path whole: a temp file beside it, renamed."""
    fd, tmp = tempfile.mkstemp(prefix=".history-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def fetch(remote: str, branch: str, db: str) -> Fetched:
    """Brings the history of `branch` on `remote` to `db`. A branch that
    does not exist is a new history (db must not exist yet); every other
    failure is a BranchError, so that the job stops before it could store."""
    sha = remote_branch(remote, branch)
    if sha is None:
        if os.path.exists(db):
            raise BranchError(f"{db} exists but {redacted(remote)} has no branch {branch}: "
                              "remove the file, or name the branch that holds it")
        return Fetched(None, 0, 0, 0)
    proc = _git(["fetch", "--no-tags", "--depth=1", remote, f"refs/heads/{branch}"])
    if proc.returncode != 0:
        raise BranchError(f"git fetch of {branch} from {redacted(remote)} failed "
                          f"({_said(proc)}); nothing was fetched, nothing may be stored")
    fetched = _git(["rev-parse", "FETCH_HEAD"]).stdout.decode().strip()
    _write_whole(db, _blob(fetched))
    runs, values = history_size(db)
    return Fetched(fetched, runs, values, os.path.getsize(db))


def write_state(path: str, fetched: Fetched) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(asdict(fetched), f)
        f.write("\n")


def read_state(path: str) -> Fetched:
    try:
        with open(path, encoding="utf-8") as f:
            return Fetched(**json.load(f))
    except FileNotFoundError:
        raise BranchError(f"{path}: no such file; run `history_branch.py fetch` first: "
                          "store pushes only over the history that fetch saw") from None
    except (ValueError, TypeError) as e:
        raise BranchError(f"{path}: not a state file written by fetch ({e})") from None


def _size_problems(db: str, size: int, fetched: Fetched, allow_shrink: bool,
                   max_bytes: int) -> tuple[int, int, list[str]]:
    """(runs, values, notices) of `db`, `size` bytes packed, about to be
    stored; BranchError when it must not replace what fetch saw."""
    runs, values = history_size(db)
    per_value = size / values if values else 0.0
    if size > max_bytes:
        raise BranchError(
            f"{db} packs to {size / 1e6:.1f} MB ({per_value:.1f} bytes a value, {values:,} "
            "values); "
            f"the branch store stops at {max_bytes / 1e6:.1f} MB, below GitHub's 100 MB file "
            "limit: move the history to PostgreSQL (docs/history.md, \"A fleet of benchmark "
            "machines\") or exclude old runs; nothing was pushed")
    if runs < fetched.runs and not allow_shrink:
        raise BranchError(
            f"{db} holds {runs} runs, the history fetched from the branch {fetched.runs}: "
            "storing it would lose runs; nothing was pushed (pass --allow-shrink if that "
            "is meant)")
    notices = []
    if runs < fetched.runs:
        notices.append(f"the stored history has {fetched.runs - runs} fewer runs than the "
                       "one it replaces (--allow-shrink)")
    elif values < fetched.values:  # every run kept: repetitions reduced (history.py compact)
        notices.append(f"the stored history keeps every run but {fetched.values - values:,} "
                       "fewer values than the one it replaces (compacted)")
    if size > WARN_FRACTION * max_bytes and runs:
        left = int((max_bytes - size) / (size / runs))
        notices.append(f"{db} packs to {size / 1e6:.1f} MB, {size / max_bytes:.0%} of the branch "
                       f"store's limit: about {left} more runs of this size fit; plan the move "
                       "to PostgreSQL")
    return runs, values, notices


def _push(remote: str, branch: str, packed: bytes, expected: str | None, message: str) -> None:
    work = tempfile.mkdtemp(prefix="history-store-")
    try:
        with open(os.path.join(work, PACKED_FILE), "wb") as f:
            f.write(packed)
        for args in (["init", "-q", "-b", branch], ["add", PACKED_FILE],
                     ["-c", "user.name=pmubench history", "-c", "user.email=history@localhost",
                      "commit", "-q", "-m", message]):
            proc = _git(args, cwd=work)
            if proc.returncode != 0:
                raise BranchError(f"git {args[0]} in {work} failed: {_said(proc)}")
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        proc = _git(["push", "-q", lease, remote, f"HEAD:refs/heads/{branch}"], cwd=work)
        if proc.returncode != 0:
            raise BranchError(
                f"push of {branch} to {redacted(remote)} refused ({_said(proc)}); if the "
                "branch moved since fetch, another job stored a history meanwhile: nothing "
                "was overwritten; run the job again")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def store(remote: str, branch: str, db: str, fetched: Fetched, message: str,
          allow_shrink: bool = False, max_bytes: int = DEFAULT_MAX_BYTES) -> list[str]:
    """Replaces `branch` on `remote` by one commit holding `db`, only over
    the commit fetch saw and only when no run is lost; the notices to print."""
    with open(db, "rb") as f:
        packed = lzma.compress(f.read())
    runs, values, notices = _size_problems(db, len(packed), fetched, allow_shrink, max_bytes)
    _push(remote, branch, packed, fetched.branch_sha, message)
    notices.append(f"stored {runs} runs, {values:,} values ({len(packed) / 1e6:.2f} MB packed, "
                   f"{os.path.getsize(db) / 1e6:.2f} MB as a file) on {branch}")
    return notices


def recorded_commits(db: str, branch: str) -> list[str]:
    """The commits of `branch` that have a run in the history `db`."""
    rows = _query(db, "SELECT DISTINCT commit_sha FROM runs WHERE branch = ?", (branch,))
    return [sha for (sha,) in rows if sha]


def gaps(db: str, branch: str, head: str, limit: int = 1000, cwd: str | None = None) -> list[str]:
    """The commits before `head` on its first-parent line, newest first, back
    to the newest one the history has a run of: the commits no run recorded
    (cancelled or skipped jobs). Empty for a new history."""
    known = [sha for sha in recorded_commits(db, branch) if not head.startswith(sha)]
    if not known:
        return []
    proc = _git(["rev-list", "--first-parent", f"--max-count={limit}", head], cwd=cwd)
    if proc.returncode != 0:
        raise BranchError(f"git rev-list {head} failed ({_said(proc)}); run in the checkout")
    line = proc.stdout.decode().split()
    missing = []
    for commit in line[1:]:
        if any(commit.startswith(sha) for sha in known):
            return missing
        missing.append(commit)
    shallow = _git(["rev-parse", "--is-shallow-repository"], cwd=cwd).stdout.strip() == b"true"
    if len(line) < limit and not shallow:
        return []      # no run of an ancestor of head: nothing was skipped after one
    raise BranchError(
        f"none of the {len(missing)} commits before {head[:12]} in this checkout has a run in "
        f"{db}: check out the whole history (actions/checkout with fetch-depth: 0), or the "
        f"gap is longer than {limit} commits")
