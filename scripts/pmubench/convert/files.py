"""Reading the sources and writing the results (scripts/convert's files).

read_source takes regular files only, up to MAX_SOURCE_BYTES: a FIFO would
block the read forever and /dev/zero would fill memory. unwritable says,
before anything is written, why a target cannot be written whole (the
result goes to a temporary file beside it, renamed over it).
write_result keeps the target's mode, or gives a new file the source's.
"""

from __future__ import annotations

import os
import stat

from pmubench.base import atomic
from pmubench.convert.model import NotGoogleBenchmark

# Larger than any benchmark source (the largest here is 40 KB), small
# enough to read whole.
MAX_SOURCE_BYTES = 16 * 1024 * 1024


class RefusedSource(ValueError):
    """The path is not a source file convert reads (message: why)."""


def read_source(path: str) -> str:
    """The text of the regular file at path (bytes that are not UTF-8
    round-trip unchanged). Raises RefusedSource for a directory, FIFO,
    device or socket, or a file over MAX_SOURCE_BYTES; NotGoogleBenchmark
    for a file with NUL bytes; OSError when it cannot be opened."""
    # O_NONBLOCK: opening a FIFO returns at once, to be refused below.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise RefusedSource("is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise RefusedSource("not a regular file (a FIFO, device or socket); "
                                "convert reads source files only")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_SOURCE_BYTES + 1)
    if info.st_size > MAX_SOURCE_BYTES or len(data) > MAX_SOURCE_BYTES:
        raise RefusedSource(f"larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB, "
                            "the most convert reads of a source file")
    if b"\0" in data:
        raise NotGoogleBenchmark("not a text file")
    return data.decode("utf-8", errors="surrogateescape")


def unwritable(target: str) -> str | None:
    """Why target cannot be written whole, or None when it can be (as far
    as can be told before writing: a full disk shows only then)."""
    directory = os.path.dirname(os.path.abspath(target))
    if os.path.isdir(target):
        return "is a directory"
    if not os.path.isdir(directory):
        return f"no directory {directory}"
    if not os.access(directory, os.W_OK | os.X_OK):
        return (f"cannot write in its directory {directory} (the result is "
                "written beside it and renamed over it)")
    return None


def write_result(target: str, text: str, source: str) -> None:
    """Writes text to target whole or not at all, with target's mode when
    it exists (a 0600 file stays 0600), else the source's."""
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = os.stat(source).st_mode & 0o777
    data = text.encode("utf-8", errors="surrogateescape")
    atomic.write_bytes_atomically(target, data, mode=mode)
