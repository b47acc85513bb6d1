"""Stops atomic.write_atomically with SIGTERM at each Python step it takes.

    python3 stop_at_every_step.py DIR

Run as its own process (signal handlers belong to the main thread): for
step k = 1, 2, ... it writes DIR/out.json (old contents "old") under a
sys.settrace(3) hook that raises SIGTERM at the k-th trace event of the
write, the stdlib code it calls included, with merge.py's handler
(SystemExit(128 + signum)) installed. It stops when a write finishes before
step k. Prints one JSON line: the steps tried, how many ended in
SystemExit, and each step that left a temp file or a cut out.json.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile

from pmubench.base import atomic

NEW = "new contents\n" * 1000


def _exit_on(signum, _frame):
    raise SystemExit(128 + signum)


def _landing_point():
    """A call: a signal released at the write's end lands here at the latest."""


def _write_stopped_at(step: int, path: str) -> tuple[bool, bool]:
    """Returns (the signal was raised, the write ended in SystemExit)."""
    events = 0

    def trace(_frame, _event, _arg):
        nonlocal events
        events += 1
        if events == step:
            sys.settrace(None)
            signal.raise_signal(signal.SIGTERM)
            return None
        return trace

    try:
        sys.settrace(trace)
        try:
            atomic.write_atomically(path, NEW)
        finally:
            sys.settrace(None)
        _landing_point()
    except SystemExit:
        return True, True
    return events >= step, False


def main(directory: str) -> int:
    signal.signal(signal.SIGTERM, _exit_on)
    # mkstemp makes its name generator once, under a lock; a stop between the
    # lock's acquire and its try would hang every later write here (a real
    # run exits instead), so the generator is made before the first stop.
    tempfile._get_candidate_names()
    path = os.path.join(directory, "out.json")
    broken, stops, step = [], 0, 0
    while True:
        step += 1
        with open(path, "w") as f:
            f.write("old")
        raised, stopped = _write_stopped_at(step, path)
        stops += stopped
        left = sorted(n for n in os.listdir(directory) if n != "out.json")
        with open(path) as f:
            text = f.read()
        if left or text not in ("old", NEW):
            broken.append({"step": step, "left": left, "out_json_chars": len(text)})
        for name in left:
            os.unlink(os.path.join(directory, name))
        if not raised:
            break
    print(json.dumps({"steps": step - 1, "stopped": stops, "broken": broken}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
