"""A larger pipe for a large report: compare.py's JSON for a suite of
180,000 runs a file is 220 MB, and through a pipe of the kernel's default
64 KB the writer waits for the reader about 3,400 times; with 1 MB, about
220 (fcntl F_SETPIPE_SZ, pipe(7) "Pipe capacity"). On this VM that was
0.11-0.14 s of system time against 0.03-0.04 for 220 MB."""

from __future__ import annotations

import fcntl
import os
import stat
from typing import Any

# The most an unprivileged process may ask for by default
# (/proc/sys/fs/pipe-max-size).
WIDE = 1 << 20


def widen(stream: Any, size: int = WIDE) -> bool:
    """Makes the pipe stream writes to hold size bytes when it is a pipe
    and the kernel allows it; True when it then holds at least size.
    Anything else (a terminal, a file, a stream without a descriptor, a
    limit lower than size) is left as it is."""
    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        return fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size) >= size
    # No descriptor (io.UnsupportedOperation is both), no F_SETPIPE_SZ,
    # or the kernel refused (EPERM over the limit, EBUSY).
    except (OSError, ValueError, AttributeError):
        return False
