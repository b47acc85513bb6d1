#!/usr/bin/python3
"""Checks that every C++ file (.h, .cc) is formatted by the repository's
.clang-format (Google style) as Debian's clang-format 14 formats it.

A folder may hold its own .clang-format (tests/convert/gbench: inputs laid
out as users write them keep their layout); clang-format finds the nearest.
To format a file, or the whole tree:

  clang-format -i --style=file FILE...
  git ls-files -z '*.h' '*.cc' | xargs -0 clang-format -i --style=file

  scripts/dev/check_format.py [--root DIR]

Exit 0 when every file is formatted, 1 naming each that is not (with the
first line clang-format would change), 2 when clang-format is missing
(scripts/setup installs it) or on a usage error.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from repo_files import cxx_files, parse_root_args, report, root_parser  # noqa: E402

# clang-format's own name on Debian 12 first: another version may format
# differently.
CLANG_FORMATS = ("clang-format-14", "clang-format")
VIOLATION = re.compile(r"^(.+?):(\d+):\d+: (?:warning|error): code should be clang-formatted",
                       re.M)
BATCH = 100  # files per clang-format run (a command line's length)


def find_clang_format() -> str | None:
    for name in CLANG_FORMATS:
        path = shutil.which(name)
        if path:
            return path
    return None


def unformatted(root: pathlib.Path, clang_format: str) -> list[str]:
    """'path:line: not formatted ...' for each C++ file of the tree at `root`
    that clang-format would change (line: the first it would change)."""
    files = [str(p) for p in cxx_files(root)]
    first_line: dict[str, int] = {}
    for start in range(0, len(files), BATCH):
        proc = subprocess.run(
            [clang_format, "--style=file", "--dry-run", "--ferror-limit=1", *files[start:start + BATCH]],
            cwd=root, capture_output=True, text=True)
        if proc.returncode != 0 and not VIOLATION.search(proc.stderr):
            raise RuntimeError(f"{clang_format} failed: {proc.stderr.strip()}")
        for path, line in VIOLATION.findall(proc.stderr):
            first_line.setdefault(path, int(line))
    return [f"{path}:{line}: not formatted by .clang-format "
            f"(clang-format -i --style=file {path})"
            for path, line in sorted(first_line.items())]


def main(argv: list[str]) -> int:
    args = parse_root_args(root_parser(__doc__), argv)
    clang_format = find_clang_format()
    if clang_format is None:
        print("check_format.py: no clang-format on PATH; run scripts/setup "
              "(it installs Debian's clang-format)", file=sys.stderr)
        return 2
    offences = unformatted(args.root, clang_format)
    return report(offences, f"{len(offences)} C++ file(s) not formatted by .clang-format")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
