"""Commit subjects for the trend report, read from a git checkout at report
time: the history keeps each run's commit SHA and nothing else about the
commit, and a run file (Google Benchmark's JSON) carries no subject, so the
checkout the report is made in (history.py report --repo DIR, default the
current directory) is the one place that knows them.

    subjects(["1a2b3c...", "5e6f7a..."], ".")   # {"1a2b3c...": "Fix the parser", ...}

One `git cat-file --batch` reads every commit at once (git-cat-file(1));
a commit the checkout lacks (a shallow clone, another repository) is
"missing" there and simply has no subject. No git, or a directory that is
not a checkout, gives no subjects at all: the report then shows SHAs only.
"""

from __future__ import annotations

import os
import subprocess


def _parse_batch(out: bytes, wanted: list[str]) -> dict[str, str]:
    """Subjects from cat-file --batch's output: per object a header line
    `SHA TYPE SIZE` and SIZE bytes of content, or `NAME missing`."""
    found: dict[str, str] = {}
    pos = 0
    for name in wanted:
        end = out.find(b"\n", pos)
        if end < 0:
            break
        header = out[pos:end].split()
        pos = end + 1
        if len(header) != 3:
            continue  # "NAME missing" or "NAME ambiguous"
        size = int(header[2])
        body, pos = out[pos:pos + size], pos + size + 1
        if header[1] == b"commit":
            # A commit object: headers, a blank line, the message.
            message = body.split(b"\n\n", 1)[1] if b"\n\n" in body else b""
            found[name] = message.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    return found


def is_checkout(repo: str) -> bool:
    """Whether repo is inside a git work tree (or is a git directory)."""
    try:
        return subprocess.run(["git", "-C", repo, "rev-parse", "--git-dir"],
                              capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def subjects(commits: list[str], repo: str | None) -> dict[str, str]:
    """The subject of each commit the git checkout at repo knows (its
    message's first line), by the SHA given; {} outside a checkout."""
    wanted = list(dict.fromkeys(c for c in commits if c))
    if not wanted or repo is None or not os.path.isdir(repo):
        return {}
    try:
        done = subprocess.run(["git", "-C", repo, "cat-file", "--batch"],
                              input="".join(f"{c}\n" for c in wanted).encode(),
                              capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if done.returncode != 0:
        return {}
    return _parse_batch(done.stdout, wanted)
