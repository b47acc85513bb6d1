"""Holding the signals that stop a run (a CI timeout's SIGTERM, a closed
terminal's SIGHUP, Ctrl-C's SIGINT) across steps that must not be cut in two.

A held signal stays pending (sigprocmask(2)) and is delivered when the mask
is set back; the entry points turn it into SystemExit(128 + signum), which
unwinds through the clean-up of whatever was in progress.
"""

from __future__ import annotations

import contextlib
import signal

STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGHUP, signal.SIGINT})


def hold() -> set:
    """Blocks the stop signals; returns the mask to give release()."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def release(mask: set) -> None:
    """Sets the mask hold() returned: a held signal is delivered now."""
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextlib.contextmanager
def held():
    """hold() for a with-block. Its end is itself a point where a held signal
    lands, so a step whose clean-up starts after the block (a try that
    follows it) needs hold() and release() inside that try instead."""
    mask = hold()
    try:
        yield
    finally:
        release(mask)
