"""Replaces a report directory as a whole: never half-written, no stale files.

    staging = stage(outdir)        # a fresh directory beside outdir
    ... write everything into staging ...
    publish(staging, outdir)       # swap it in, drop the old report

A reader sees the old report or the new one: on Linux the swap is one
renameat2(RENAME_EXCHANGE); elsewhere two renames leave a moment with no
OUTDIR, never a mixed one. An existing OUTDIR is only replaced when it is
empty or holds the marker file an earlier report left, so `-o ~` cannot wipe
a home directory.

Nothing is left behind when the run is stopped: the staging directory is
named .OUTDIR.tmp-PID-XXXXXX (PID: the writing process), every staging
directory made and not yet published is remembered, discard_all() removes
them (plot.py calls it on SIGTERM/SIGINT), and stage() first removes the
ones a killed run left (SIGKILL): those of OUTDIR's prefix, owned by this
user, whose PID is not alive. Both swap steps run with SIGTERM and SIGINT
held, so a stop lands before or after them, never between two renames.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
import stat
import tempfile

from pmubench.base import stop_signals
from pmubench.runs.benchjson import BadInput

MARKER = ".pmubench-report"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_staged: set[str] = set()  # made by stage(), not yet published or discarded


def check_replaceable(outdir: str) -> None:
    """Raises BadInput when outdir exists but is not ours to replace."""
    if not os.path.lexists(outdir):
        return
    if os.path.islink(outdir) or not os.path.isdir(outdir):
        raise BadInput(f"{outdir}: exists and is not a directory; pass -o a new "
                       "directory or an earlier report's directory")
    if os.listdir(outdir) and not os.path.exists(os.path.join(outdir, MARKER)):
        raise BadInput(f"{outdir}: exists, is not empty and is not an earlier "
                       f"pmubench report (no {MARKER}); pass -o a new directory "
                       "(the report replaces the whole directory)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or no PID: not provably dead
    return True


def remove_stale(outdir: str) -> list[str]:
    """Removes the staging directories beside outdir that a killed run left:
    .OUTDIR.tmp-PID-XXXXXX (and its .old), a directory (not a symbolic
    link) owned by this user, of a PID that is not alive. Returns their
    paths. Anything else, an older run's name without a PID included, is
    left alone."""
    parent = os.path.dirname(os.path.abspath(outdir))
    base = os.path.basename(os.path.abspath(outdir))
    ours = re.compile(rf"\.{re.escape(base)}\.tmp-([1-9][0-9]{{0,9}})-[A-Za-z0-9_]+(\.old)?")
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        match = ours.fullmatch(name)
        if not match or int(match[1]) == os.getpid() or _alive(int(match[1])):
            continue
        path = os.path.join(parent, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def stage(outdir: str) -> str:
    """Creates the staging directory beside outdir (same file system),
    after removing the ones killed runs left there."""
    check_replaceable(outdir)
    parent = os.path.dirname(os.path.abspath(outdir))
    prefix = f".{os.path.basename(os.path.abspath(outdir))}.tmp-{os.getpid()}-"
    try:
        os.makedirs(parent, exist_ok=True)
        remove_stale(outdir)
        with stop_signals.held():  # made and remembered, or neither
            staging = tempfile.mkdtemp(prefix=prefix, dir=parent)
            _staged.add(staging)
    except OSError as e:
        raise BadInput(f"{outdir}: cannot create a directory beside it: {e}") from None
    try:
        umask = os.umask(0o077)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes 0700; a report is for reading
        with open(os.path.join(staging, MARKER), "w", encoding="utf-8") as f:
            f.write("written by reports/plot.py; the whole directory is replaced on the next run\n")
    except BaseException:
        discard(staging)
        raise
    return staging


def _exchange(a: str, b: str) -> bool:
    """Atomically swaps two paths with renameat2; False where unsupported."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    if not hasattr(libc, "renameat2"):
        return False
    rc = libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b),
                        _RENAME_EXCHANGE)
    return rc == 0


def publish(staging: str, outdir: str) -> None:
    """Moves staging to outdir, replacing (and deleting) an earlier report."""
    check_replaceable(outdir)
    with stop_signals.held():
        if not os.path.lexists(outdir):
            os.rename(staging, outdir)
            _staged.discard(staging)
            return
        if not _exchange(staging, outdir):
            old = staging + ".old"
            os.rename(outdir, old)
            try:
                os.rename(staging, outdir)
            except OSError:
                os.rename(old, outdir)  # put the earlier report back
                raise
            _staged.discard(staging)
            _staged.add(old)
            staging = old
    # staging now holds the old report: removed here, or by discard_all()
    # when a stop signal lands first
    shutil.rmtree(staging)
    _staged.discard(staging)


def discard(staging: str) -> None:
    shutil.rmtree(staging, ignore_errors=True)
    _staged.discard(staging)


def discard_all() -> None:
    """Removes every staging directory made and not published (on a stop)."""
    for staging in list(_staged):
        discard(staging)
