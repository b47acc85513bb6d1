#!/usr/bin/python3
"""Runs a command under a time limit that holds on a loaded machine.

    deadline.py --quiet-seconds N -- COMMAND [ARG...]

The limit is N seconds of an unloaded machine's time, not of wall time:
each wall second counts min(1, CPUs / load), with the load the kernel's
one-minute average (/proc/loadavg; our own jobs are part of it). On a quiet
machine a second counts whole; where ten other jobs share two CPUs, a
consumer build takes about six times as long and each of its seconds counts
a sixth. A hang still ends: its seconds keep counting (at the load of the
moment), and at N the command's process group is killed.

Exit status: the command's own, or 124 when the limit ended it (with a line
on stderr saying after how long and at what load), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from typing import Callable, NamedTuple

EXIT_LIMIT = 124  # as timeout(1)
TICK_SECONDS = 1.0
GRACE_SECONDS = 10  # between SIGTERM and SIGKILL


def machine_seconds(wall_seconds: float, load: float, cpus: int) -> float:
    """What `wall_seconds` at one-minute load `load` on `cpus` CPUs are
    worth in an unloaded machine's time: all of it up to a load of `cpus`,
    cpus / load of it above."""
    if load <= cpus:
        return wall_seconds
    return wall_seconds * cpus / load


def read_load() -> float:
    """The one-minute load average (proc(5), /proc/loadavg)."""
    with open("/proc/loadavg", encoding="ascii") as f:
        return float(f.read().split()[0])


class Watched(NamedTuple):
    ended: bool      # the command ended before the limit
    wall: float      # wall seconds
    counted: float   # an unloaded machine's seconds
    peak: float      # the highest one-minute load seen


def watch(proc: subprocess.Popen, quiet_seconds: float, cpus: int,
          load: Callable[[], float] = read_load,
          tick: float = TICK_SECONDS) -> Watched:
    """Waits for `proc`, counting machine seconds, until it ends or the
    count reaches `quiet_seconds`."""
    start = last = time.monotonic()
    counted, peak = 0.0, 0.0
    while True:
        try:
            proc.wait(timeout=tick)
            return Watched(True, time.monotonic() - start, counted, peak)
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        current = load()
        peak = max(peak, current)
        counted += machine_seconds(now - last, current, cpus)
        last = now
        if counted >= quiet_seconds:
            return Watched(False, now - start, counted, peak)


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the command's process group, SIGKILL after a grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quiet-seconds", type=float, required=True,
                        help="the limit, in an unloaded machine's seconds")
    parser.add_argument("command", nargs="+", help="the command and its args")
    args = parser.parse_args(argv)
    if args.quiet_seconds <= 0:
        parser.error(f"--quiet-seconds must be positive, got {args.quiet_seconds}")
    cpus = len(os.sched_getaffinity(0))
    # CTest's own TIMEOUT (the backstop) sends SIGTERM: stop the group too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        proc = subprocess.Popen(args.command, start_new_session=True)
    except OSError as e:
        parser.error(f"cannot run {args.command[0]!r}: {e.strerror}")
    try:
        w = watch(proc, args.quiet_seconds, cpus)
    except BaseException:
        stop_group(proc)
        raise
    name = " ".join(args.command)
    if w.ended:
        print(f"deadline.py: {name} took {w.wall:.0f} s ({w.counted:.0f} s of "
              f"an unloaded machine's time of the {args.quiet_seconds:.0f} s "
              f"allowed; load up to {w.peak:.1f} on {cpus} CPUs)",
              file=sys.stderr)
        return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    stop_group(proc)
    print(f"deadline.py: {name} did not end within "
          f"{args.quiet_seconds:.0f} s of an unloaded machine's time "
          f"({w.wall:.0f} s of wall time, load up to {w.peak:.1f} on {cpus} "
          f"CPUs): a hang? Stopped.", file=sys.stderr)
    return EXIT_LIMIT


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
