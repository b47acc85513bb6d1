"""The repository's own files, for the checks of scripts/dev.

In a git checkout: the files git tracks plus the new ones it does not
ignore (`git ls-files --cached --others --exclude-standard`), so a file not
yet added is checked too. Elsewhere (a copy of the tree, as the tests make):
every file under the root except build output (build*/, bazel-*), .git and
__pycache__. Symbolic links are left out (reports/pmubench points at
scripts/pmubench: one file is checked once).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
from typing import Callable

CXX_SUFFIXES = (".h", ".cc")
SKIPPED_DIRS = (".git", "__pycache__", ".pytest_cache")


def _git_files(root: pathlib.Path) -> list[str] | None:
    """Relative paths git knows in `root`, or None when `root` is not the
    top of a git work tree."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    if pathlib.Path(top).resolve() != root.resolve():
        return None
    out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached",
                          "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout
    return sorted({p for p in out.split("\0") if p})


def _walked_files(root: pathlib.Path) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root):
        rel = pathlib.Path(folder).relative_to(root)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not (
            rel == pathlib.Path(".") and (d.startswith("build") or d.startswith("bazel-"))))
        out += [str(rel / f) if rel != pathlib.Path(".") else f for f in files]
    return sorted(out)


def repo_files(root: pathlib.Path, links: bool = False) -> list[pathlib.Path]:
    """Every file of the repository at `root` (see the module's docstring),
    as paths relative to `root`, sorted; deleted ones left out, and
    symbolic links unless `links`."""
    names = _git_files(root)
    if names is None:
        names = _walked_files(root)
    return [pathlib.Path(n) for n in names
            if (root / n).is_symlink() and links
            or (root / n).is_file() and not (root / n).is_symlink()]


def cxx_files(root: pathlib.Path) -> list[pathlib.Path]:
    """The C++ sources and headers (.h, .cc) of the repository."""
    return [p for p in repo_files(root) if p.suffix in CXX_SUFFIXES]


def python_files(root: pathlib.Path) -> list[pathlib.Path]:
    """The Python files: every .py, and every file without a suffix whose
    first line is a python shebang (scripts/test, scripts/convert, ...)."""
    out = []
    for p in repo_files(root):
        if p.suffix == ".py":
            out.append(p)
        elif p.suffix == "":
            with open(root / p, "rb") as f:
                first = f.readline(200)
            if first.startswith(b"#!") and b"python" in first:
                out.append(p)
    return out


def root_parser(description: str) -> argparse.ArgumentParser:
    """The command line every tree check shares: --root, the repository to
    check (default: this one)."""
    parser = argparse.ArgumentParser(
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2],
                        help="the repository to check (default: this one)")
    return parser


def parse_root_args(parser: argparse.ArgumentParser,
                    argv: list[str]) -> argparse.Namespace:
    """parser's arguments; exit 2 when --root is not a directory."""
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        parser.error(f"--root {args.root}: not a directory")
    return args


def report(offences: list[str], summary: str = "") -> int:
    """One line per offence on stdout (and `summary` on stderr when there
    is one); exit 1 when there is one, 0 when there is none."""
    for offence in offences:
        print(offence)
    if offences and summary:
        print(summary, file=sys.stderr)
    return 1 if offences else 0


def check_main(argv: list[str], description: str,
               check: Callable[[pathlib.Path], list[str]]) -> int:
    """A tree check's whole command line: --root, one line per offence that
    check(root) names, exit 1 when there is one, 0 when there is none, 2 on
    a bad --root."""
    args = parse_root_args(root_parser(description), argv)
    return report(check(args.root))
