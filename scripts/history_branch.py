#!/usr/bin/python3
"""Keeps a SQLite history on a git branch of its own, as the CI recipe of
docs/history.md does, without ever losing it:

    python3 scripts/history_branch.py fetch --remote URL [--branch bench-history] --db history.db
    python3 scripts/history_branch.py store --remote URL [--branch bench-history] --db history.db -m MSG
    python3 scripts/history_branch.py gaps  --db history.db --branch main --head SHA

fetch: a branch that does not exist starts a new history; a remote that
cannot be read fails (exit 1), so that no later step stores over a history
it never saw. It writes DB.fetched.json for store.
store: pushes one commit holding the database, only over the commit fetch
saw (a concurrent writer is never overwritten), never with fewer runs than
fetch saw (unless --allow-shrink), never past the forge's file limit.
gaps: lists the commits before HEAD that have no run (cancelled jobs).
Exit status: 0 done, 1 the step failed (the job must stop), 2 bad usage.
Logic: scripts/pmubench/history/branch_store.py.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from pmubench.base import launch

launch.ensure("history_branch.py", launch.NO_NEEDS)

from pmubench.base import front  # noqa: E402
from pmubench.base.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_STEP_FAILED  # noqa: E402
from pmubench.history import branch_store  # noqa: E402


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="history_branch.py", description=__doc__.split("\n\n")[0])
    verbs = top.add_subparsers(dest="verb", required=True)
    for name in ("fetch", "store"):
        verb = verbs.add_parser(name)
        verb.add_argument("--remote", required=True, help="git remote name or URL")
        verb.add_argument("--branch", default="bench-history")
        verb.add_argument("--db", required=True, help="the SQLite history file")
        verb.add_argument("--state", help="fetch's record (default: DB.fetched.json)")
    store = verbs.choices["store"]
    store.add_argument("-m", "--message", required=True, help="the commit message")
    store.add_argument("--allow-shrink", action="store_true",
                       help="store even when the history holds fewer runs than fetched")
    store.add_argument("--max-mb", type=float, default=branch_store.DEFAULT_MAX_BYTES / 2**20,
                       help="refuse a database larger than this (MiB; default 95)")
    gaps = verbs.add_parser("gaps")
    gaps.add_argument("--db", required=True)
    gaps.add_argument("--branch", required=True, help="the branch the runs were ingested as")
    gaps.add_argument("--head", required=True, help="the commit just recorded")
    return top


def _subject(commit: str) -> str:
    done = subprocess.run(["git", "log", "-1", "--format=%s", commit],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip()


def run(args: argparse.Namespace) -> int:
    state = getattr(args, "state", None) or f"{args.db}.fetched.json"
    if args.verb == "fetch":
        fetched = branch_store.fetch(args.remote, args.branch, args.db)
        branch_store.write_state(state, fetched)
        print(f"history_branch.py: {args.branch} does not exist yet: a new history"
              if fetched.branch_sha is None else
              f"history_branch.py: fetched {args.branch} at {fetched.branch_sha[:12]}: "
              f"{fetched.runs} runs, {fetched.values:,} values")
    elif args.verb == "store":
        for line in branch_store.store(args.remote, args.branch, args.db,
                                       branch_store.read_state(state), args.message,
                                       args.allow_shrink, int(args.max_mb * 2**20)):
            print(f"history_branch.py: {line}")
    else:
        missing = branch_store.gaps(args.db, args.branch, args.head)
        if missing:
            print(f"history_branch.py: {len(missing)} commits before {args.head[:12]} have "
                  "no run (cancelled or skipped jobs):")
        for commit in missing:
            print(f"  {commit}  {_subject(commit)}")
    return EXIT_OK


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "max_mb", 1) <= 0:
        print("history_branch.py: error: --max-mb must be positive", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return run(args)
    except branch_store.BranchError as e:
        print(f"history_branch.py: error: {e}", file=sys.stderr)
        return EXIT_STEP_FAILED


if __name__ == "__main__":
    sys.exit(front.run("history_branch.py", lambda: main(sys.argv[1:]),
                       "the command line and the remote's git version"))
