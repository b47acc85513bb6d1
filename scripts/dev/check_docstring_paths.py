#!/usr/bin/python3
"""Checks that every repository path a docstring names exists.

Docstrings (a Python module's, class's or function's) and the comments of
C++ files tell a reader where things are: `framework/runner/plan/plan.h`,
`scripts/dev/check_rooms.py`. A move that forgets them leaves the reader at
a file that is not there. A path here is a word that starts with one of the
repository's top folders and a slash; `a.{h,cc}` names a.h and a.cc; a
glob (`*`) or a path with `...` is a pattern, not a path. The docs pages'
own check is tests/python/test_docs_links.py.

  scripts/dev/check_docstring_paths.py [--root DIR]

Exit 0 when every named path exists, 1 naming each one that does not
(file:line: path), 2 on a usage error.
"""

from __future__ import annotations

import ast
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from repo_files import check_main, cxx_files, python_files  # noqa: E402

TOP_DIRS = ("framework", "scripts", "tests", "benches", "include", "reports",
            "docs", "cmake", "third_party", ".ci")
NAMED_PATH = re.compile(
    rf"(?<![\w/.$-])(?:{'|'.join(re.escape(d) for d in TOP_DIRS)})/[\w./{{}},*-]*")
CXX_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def expand(path: str) -> list[str]:
    """`a.{h,cc}` -> [a.h, a.cc]; a path without braces as it is."""
    brace = re.search(r"\{([^}]*)\}", path)
    if not brace:
        return [path]
    return [path[:brace.start()] + alt + path[brace.end():]
            for alt in brace.group(1).split(",")]


def paths_in(text: str) -> list[tuple[int, str]]:
    """(line within text, path) of each repository path named in text."""
    out = []
    for m in NAMED_PATH.finditer(text):
        span = m.group(0).rstrip(".,:;)")
        if span.count("{") != span.count("}"):
            span = span.split("{")[0]
        if "*" in span or "..." in span:
            continue
        line = text.count("\n", 0, m.start())
        out += [(line, p) for p in expand(span)]
    return out


def python_docstrings(text: str) -> list[tuple[int, str]]:
    """(first line, text) of the module's, each class's and each function's
    docstring."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            out.append((body[0].lineno, body[0].value.value))
    return out


def cxx_comments(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each comment of a C++ source."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0))
            for m in CXX_COMMENT.finditer(text)]


def missing_named_paths(root: pathlib.Path) -> list[str]:
    """'file:line: `path` does not exist' for each path a docstring or C++
    comment of the tree at `root` names that is not there."""
    out = []
    sources = [(p, python_docstrings) for p in python_files(root)] + \
        [(p, cxx_comments) for p in cxx_files(root)]
    for rel, texts_of in sources:
        try:
            texts = texts_of((root / rel).read_text(encoding="utf-8"))
        except SyntaxError:
            continue  # check_function_length.py names a file that does not parse
        for first, text in texts:
            for line, named in paths_in(text):
                if not (root / named.rstrip("/")).exists():
                    out.append(f"{rel}:{first + line}: `{named}` does not exist")
    return out


def main(argv: list[str]) -> int:
    return check_main(argv, __doc__, missing_named_paths)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
