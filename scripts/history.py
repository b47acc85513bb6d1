#!/usr/bin/python3
"""The results history: keep every run of a branch, find change points,
judge a run against the history, write a trend report.

    python3 scripts/history.py ingest --db DB [--commit SHA] [--branch B] [--machine NAME] RUN.json...
    python3 scripts/history.py detect --db DB [--branch main] [--since TIME] [--format text|json]
    python3 scripts/history.py judge  --db DB [--branch main] [--threshold METRIC=PCT ...] HEAD.json
    python3 scripts/history.py report --db DB -o DIR
    python3 scripts/history.py compact --db DB --keep-commits N
    python3 scripts/history.py ack | exclude | upgrade --db DB ...

--db PATH is a SQLite file; --db postgresql://... a PostgreSQL server.
Exit status: 0 done (judge: no regression), 1 judge: a regression,
2 bad input or usage, 4 judge: nothing could be judged.
The logic lives in scripts/pmubench/history/; docs/history.md is the guide.
"""

from __future__ import annotations

import sys

from pmubench.base import launch

launch.ensure("history.py", launch.HISTORY_NEEDS)

from pmubench.base import front  # noqa: E402
from pmubench.history import cli  # noqa: E402

if __name__ == "__main__":
    # SystemExit from a stop signal unwinds through the open transaction,
    # which rolls back.
    sys.exit(front.run("history.py", cli.main, "the command line"))
