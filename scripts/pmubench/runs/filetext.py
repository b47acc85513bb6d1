"""A file's text read through a read-only map of the file: benchjson.load's
way to read a large file.

Reading a file the plain way (`open(path, encoding="utf-8").read()`)
makes a bytes copy of it and then the str; decoding the map makes the str
alone. On the large suite of scripts/dev/compare_timing.py (two 80 MB
files) the copies were 37,000 of the 216,000 page faults of reading both.
A file that cannot be read this way gives None, and the caller reads it
the plain way, whose errors say what is wrong.
"""

from __future__ import annotations

import mmap
import os
import stat


def mapped_text(path: str) -> str | None:
    """The text of the regular file at path, decoded as UTF-8 from a map
    of it (closed before this returns): what the plain read gives, but for
    carriage returns, which that read turns into newlines (JSON reads
    both as whitespace between values, and as an error inside a string;
    only the line and column of a parse error can differ). None for any
    file read otherwise: one that is not a regular file (a FIFO or
    /dev/stdin on a pipe is not opened here, so nothing of it is read),
    empty (a map refuses size 0), unreadable or not valid UTF-8."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return str(m, "utf-8")
    except (OSError, ValueError):   # ValueError: an empty file; bad UTF-8
        return None
