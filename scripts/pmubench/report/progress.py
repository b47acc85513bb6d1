"""A progress line on stderr for long reports."""

from __future__ import annotations

import math
import sys
import time


class Progress:
    """Says what plot.py is doing: one line rewritten in place on a
    terminal, else a line at most every 10 seconds (CI logs)."""

    def __init__(self, stream=sys.stderr) -> None:
        self._stream = stream
        self._tty = stream.isatty()
        self._start = time.monotonic()
        self._last = -math.inf

    def __call__(self, what: str) -> None:
        now = time.monotonic()
        line = f"plot.py: {now - self._start:.0f} s: {what}"
        if self._tty:
            self._stream.write("\r\033[K" + line[:160])
        elif now - self._last >= 10.0:
            self._stream.write(line + "\n")
        else:
            return
        self._last = now
        self._stream.flush()

    def done(self) -> None:
        if self._tty:
            self._stream.write("\r\033[K")
            self._stream.flush()
