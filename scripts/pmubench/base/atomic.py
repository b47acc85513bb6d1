"""Writing a report file whole or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile

from pmubench.base import stop_signals


def _umask() -> int:
    """The process's umask (reading it means setting it: set it back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def write_atomically(path: str, text: str) -> None:
    """Writes text to a temp file beside path and renames it over path, so a
    reader never sees a half-written file. The file gets the mode open(2)
    would give a new one, 0666 & ~umask (mkstemp makes it 0600, which
    another user of a CI job could not read). Raises OSError (ENOSPC,
    EFBIG, EIO from the write, the flush at close or fsync(2)); the temp
    file is removed then and path is left as it was."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: str, data: bytes, mode: int | None = None) -> None:
    """write_atomically for bytes; mode, when given, is the new file's
    (a file rewritten in place keeps its own), else 0666 & ~umask.

    A stop signal (stop_signals) lands before the temp file exists, while
    the clean-up below is ready to remove it, or after the rename: the
    signals are held from mkstemp (whose own Python code runs after the
    file is made) into the try, and across the rename."""
    directory = os.path.dirname(os.path.abspath(path))
    outside = stop_signals.hold()
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".pmubench-", suffix=".tmp")
    except BaseException:
        stop_signals.release(outside)
        raise
    try:
        stop_signals.release(outside)
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), (0o666 & ~_umask()) if mode is None else mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # the data is on disk before the name is
        stop_signals.hold()
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # renamed before the stop
            os.unlink(tmp)
        stop_signals.release(outside)
        raise
    stop_signals.release(outside)
