#!/usr/bin/python3
"""Checks that no backup or merge leftover is part of the repository.

A leftover: a file named like an editor's or a merge's backup (`*.orig`,
`*.rej`, `*~`, `*.BACKUP.*`, `*.BASE.*`, `*.LOCAL.*`, `*.REMOTE.*`, as
patch(1), editors and git mergetool leave them), or a text file with a
conflict marker (a line starting `<<<<<<< ` or `>>>>>>> `).

  scripts/dev/check_leftovers.py [--root DIR]

Exit 0 when there is none, 1 naming each (delete it with `git rm`, or
resolve the conflict), 2 on a usage error.
"""

from __future__ import annotations

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from repo_files import check_main, repo_files  # noqa: E402

LEFTOVER_NAME = re.compile(r"(\.orig|\.rej|~|\.(BACKUP|BASE|LOCAL|REMOTE)\.[^/]*)$")
CONFLICT_MARKER = re.compile(rb"^(<<<<<<<|>>>>>>>) ", re.M)


def leftovers(root: pathlib.Path) -> list[str]:
    """A line naming each leftover of the tree at `root`."""
    out = []
    for rel in repo_files(root):
        if LEFTOVER_NAME.search(rel.name):
            out.append(f"{rel}: a backup or merge leftover (git rm it)")
            continue
        data = (root / rel).read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        marker = CONFLICT_MARKER.search(data)
        if marker:
            line = data.count(b"\n", 0, marker.start()) + 1
            out.append(f"{rel}:{line}: a merge conflict marker (resolve the conflict)")
    return out


def main(argv: list[str]) -> int:
    return check_main(argv, __doc__, leftovers)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
