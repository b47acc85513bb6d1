"""A file's text as `open(path, encoding="utf-8").read()` gives it, read
through a read-only map of the file: benchjson.load's way to read a large
file.

Reading a file the plain way makes a bytes copy of it and then the str; on
the large suite of scripts/dev/compare_timing.py (two 80 MB files) the
page faults of the copies were a third of reading's CPU time. Decoding the
map makes the str alone. A file that cannot be read this way gives None,
and the caller reads it the plain way, whose errors say what is wrong.
"""

from __future__ import annotations

import mmap
import os
import stat


def mapped_text(path: str) -> str | None:
    """The text of the regular file at path, decoded as UTF-8 from a map
    of it (closed before this returns); None for any file read otherwise:
    one that is not a regular file (a FIFO or /dev/stdin on a pipe is not
    opened here, so nothing of it is read), empty (a map refuses size 0),
    unreadable, not valid UTF-8, or holding a carriage return (the plain
    read turns "\\r\\n" and "\\r" into "\\n")."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            if m.find(b"\r") != -1:
                return None
            return str(m, "utf-8")
    except (OSError, ValueError):   # ValueError: an empty file; bad UTF-8
        return None
