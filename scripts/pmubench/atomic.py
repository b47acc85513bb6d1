"""Writing a report file whole or not at all."""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, text: str) -> None:
    """Writes text to a temp file beside path and renames it over path, so a
    reader never sees a half-written file. Raises OSError (ENOSPC, EFBIG,
    EIO from the write, the flush at close or fsync(2)); the temp file is
    removed then and path is left as it was."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".pmubench-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())  # the data is on disk before the name is
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
