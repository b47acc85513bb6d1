"""Reading an input file once, whole, when it is a regular file of a
bounded size: a FIFO would block for ever and /dev/zero never ends, so both
are refused before anything is read."""

from __future__ import annotations

import os
import stat


class Refused(Exception):
    """The file is not a regular file, too large, or unreadable; the message
    names it and the fix."""


def read_capped(path: str, cap: int) -> bytes:
    """The bytes of the regular file at path (links followed), at most cap
    of them. Opened with O_NONBLOCK so that a FIFO does not wait for a
    writer (open(2)); the type is checked on the open descriptor, so the
    file checked is the file read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise Refused(f"{path}: cannot read: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else
                    "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device or socket")
            raise Refused(f"{path}: is {kind}, not a regular file; write the run to a "
                          "file first (--benchmark_out=FILE) and give that")
        try:
            data = f.read(cap + 1)
        except OSError as e:
            raise Refused(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > cap:
        raise Refused(f"{path}: larger than {cap // (1 << 20)} MiB, more than a run file "
                      "holds; split the run (--benchmark_filter) or check the file")
    return data
