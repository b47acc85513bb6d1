"""Replaces a report directory as a whole: never half-written, no stale files.

    staging = stage(outdir)        # a fresh directory beside outdir
    ... write everything into staging ...
    publish(staging, outdir)       # swap it in, drop the old report

A reader sees the old report or the new one: on Linux the swap is one
renameat2(RENAME_EXCHANGE); elsewhere two renames leave a moment with no
OUTDIR, never a mixed one. An existing OUTDIR is only replaced when it is
empty or holds the marker file an earlier report left, so `-o ~` cannot wipe
a home directory.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import tempfile

from pmubench.benchjson import BadInput

MARKER = ".pmubench-report"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h


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


def stage(outdir: str) -> str:
    """Creates the staging directory beside outdir (same file system)."""
    check_replaceable(outdir)
    parent = os.path.dirname(os.path.abspath(outdir))
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(outdir))}.tmp-",
                                   dir=parent)
    except OSError as e:
        raise BadInput(f"{outdir}: cannot create a directory beside it: {e}") from None
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes 0700; a report is for reading
    with open(os.path.join(staging, MARKER), "w", encoding="utf-8") as f:
        f.write("written by reports/plot.py; the whole directory is replaced on the next run\n")
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
    if not os.path.lexists(outdir):
        os.rename(staging, outdir)
        return
    if _exchange(staging, outdir):
        shutil.rmtree(staging)  # now holds the old report
        return
    old = staging + ".old"
    os.rename(outdir, old)
    try:
        os.rename(staging, outdir)
    except OSError:
        os.rename(old, outdir)  # put the earlier report back
        raise
    shutil.rmtree(old)


def discard(staging: str) -> None:
    shutil.rmtree(staging, ignore_errors=True)
