#!/usr/bin/python3
"""The results history: keep every run of a branch, find change points,
judge a run against the history, write a trend report.

    python3 scripts/history.py ingest --db DB [--commit SHA] [--branch B] [--machine NAME] RUN.json...
    python3 scripts/history.py detect --db DB [--branch main] [--since TIME] [--format text|json]
    python3 scripts/history.py judge  --db DB [--branch main] HEAD.json
    python3 scripts/history.py report --db DB -o DIR
    python3 scripts/history.py ack | exclude | upgrade --db DB ...

--db PATH is a SQLite file; --db postgresql://... a PostgreSQL server.
Exit status: 0 done (judge: no regression), 1 judge: a regression,
2 bad input or usage, 4 judge: nothing could be judged.
The logic lives in scripts/pmubench/history/; docs/history.md is the guide.
"""

from __future__ import annotations

import signal
import sys
import traceback

from pmubench.base import launch

launch.ensure("history.py", launch.HISTORY_NEEDS)

from pmubench.history import cli  # noqa: E402


def _exit_on(signum: int, _frame) -> None:
    # SystemExit unwinds through the open transaction, which rolls back.
    raise SystemExit(128 + signum)


def guarded_main() -> int:
    """cli.main(), with an unexpected exception reported as exit 2: Python's
    own status for a traceback is 1, which CI would read as a regression."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on)
    try:
        return cli.main()
    except Exception:  # noqa: BLE001 - a bug must not pass for a verdict
        traceback.print_exc()
        print("history.py: internal error (a bug in history.py, not a regression); "
              "please report it with the command line", file=sys.stderr)
        return cli.EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(guarded_main())
