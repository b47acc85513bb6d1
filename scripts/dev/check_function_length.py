#!/usr/bin/python3
"""Checks that no function of the repository is over 60 lines (C++ and Python).

A function's length is its lines from the first line of its signature to
its last line, both counted (blank and comment lines too):
- Python, by the `ast` module: a def's `lineno` to its `end_lineno`
  (decorators not counted); a nested def counts in its parent and alone.
- C++, by a scanner of the source (comments, string and character
  literals and preprocessor lines blanked first, then braces matched): a
  function is a brace block at namespace or class scope whose header holds
  a parameter list and is not an initializer (`= {...}`); it runs from the
  header's first line (a `template <...>` line included) to its closing
  brace. TEST(...) bodies count; a lambda counts in the function around it.
  The scanner needs no build and no compile flags, so it checks any tree in
  a second; it was checked against clang-tidy's readability-function-size
  on this tree (docs/maintaining.md).

  scripts/dev/check_function_length.py [--root DIR] [--max LINES]

Exit 0 when every function is within the limit, 1 listing each one over it
(path:line: name: N lines), 2 on a usage error.
"""

from __future__ import annotations

import ast
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from repo_files import cxx_files, parse_root_args, python_files, report, root_parser  # noqa: E402

MAX_LINES = 60


def python_functions(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of every def in a Python source."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.lineno, node.end_lineno, node.name))
    return sorted(out)


RAW_STRING = re.compile(r'(?:u8|[uUL])?R"([^()\\ \t\n]{0,16})\(')


def _blank(text: str) -> str:
    """Keeps the newlines and puts a space for every other character."""
    return re.sub(r"[^\n]", " ", text)


def blank_cxx(text: str) -> str:
    """The source with comments, string and character literals (raw strings
    too) and preprocessor lines made blank, each line where it was."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            end = i
            while True:  # a directive runs on over backslash-newlines
                end = text.find("\n", end)
                if end == -1:
                    end = n
                    break
                if text[end - 1] != "\\":
                    break
                end += 1
            out.append(_blank(text[i:end]))
            i = end
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        raw = RAW_STRING.match(text, i) if c in 'uULR' else None
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + raw.group(1) + '"', raw.end())
            end = n if end == -1 else end + len(raw.group(1)) + 2
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A ' after a digit or letter is a digit separator (1'000) or
            # ends a prefix (u8'x' is rare enough to miss).
            end = i + 1
            while end < n and text[end] != c and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append(_blank(text[i:end]))
        i = end
    return "".join(out)


SCOPE_HEADER = re.compile(r"^(?:namespace|extern|class|struct|union|enum)\b")
ACCESS = re.compile(r"^\s*(?:public|protected|private)\s*$")
INITIALIZER = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)")
NAME = re.compile(r"((?:\w+\s*::\s*)*operator\s*(?:\(\)|[^\s(]+)"
                  r"|~?[A-Za-z_]\w*(?:\s*::\s*~?[A-Za-z_]\w*)*)\s*\(")


def _top_level(header: str) -> str:
    """The header with what is inside (), <> of templates and [] removed."""
    out, depth = [], 0
    for c in header:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    return "".join(out)


def _without_template_prefix(header: str) -> str:
    """The header after a leading `template <...>` (its defaults hold `=`)."""
    m = re.match(r"template\s*<", header)
    if not m:
        return header
    depth, i = 1, m.end()
    while i < len(header) and depth:
        depth += {"<": 1, ">": -1}.get(header[i], 0)
        i += 1
    return header[i:].lstrip()


def _kind(header: str) -> str:
    """'scope' (namespace, class), 'function' or 'other' (an initializer,
    an enum's list, anything else) for the text before a `{`."""
    h = _without_template_prefix(header.strip())
    top = _top_level(h)
    if SCOPE_HEADER.match(h) and "(" not in h.split("{")[0].split(":")[0]:
        return "scope"
    if "(" not in h or ")" not in h:
        return "other"
    top = re.sub(r"\boperator\s*[^\w\s]*", "operator ", top)
    if INITIALIZER.search(top) or top.rstrip().endswith(","):
        return "other"
    return "function"


def _init_list_brace(header: str) -> bool:
    """A `{` that opens a member's initializer in a constructor's list
    (`: a_(a), b_{b} {`): the header has its parameter list and then a
    single `:`, and the `{` follows a name or `>`."""
    top = _top_level(header)
    if not re.search(r"\)\s*(?:noexcept\s*)?:(?!:)", re.sub(r"\(\s*\)", "()", header)):
        return False
    return bool(re.search(r"[\w>]\s*$", header)) and ":" in top.replace("::", "")


def _function_name(header: str) -> str:
    names = NAME.findall(re.sub(r"\s+", " ", header))
    return re.sub(r"\s+", "", names[0]) if names else "?"


def cxx_functions(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of every function defined in a C++
    source (see the module's docstring for what counts)."""
    code = blank_cxx(text)
    out = []
    header_start, header = None, []
    i, n, line = 0, len(code), 1
    stack = []  # kinds of the open braces at scope level
    while i < n:
        c = code[i]
        if c == "\n":
            line += 1
        if c in ";}" or (c == "{" and not header):
            if c == "}" and stack:
                stack.pop()
            if c == "{":
                stack.append("other")
            header_start, header = None, []
            i += 1
            continue
        if c == "{":
            text_before = "".join(header)
            if text_before.count("(") > text_before.count(")") or \
                    _init_list_brace(text_before):  # a default argument's T{}
                end = _skip_braces(code, i, header)
                line, i = line + code.count("\n", i, end), end
                continue
            kind = _kind(text_before)
            if kind == "function":
                end, end_line = _matching_brace(code, i, line)
                out.append((header_start, end_line, _function_name(text_before)))
                line, i = end_line, end + 1
                header_start, header = None, []
                continue
            if kind == "other":
                end = _skip_braces(code, i, [])
                line, i = line + code.count("\n", i, end), end
                header_start, header = None, []
                continue
            stack.append(kind)
            header_start, header = None, []
            i += 1
            continue
        if c == ":" and ACCESS.match("".join(header)):
            header_start, header = None, []  # public: and the like
            i += 1
            continue
        if header_start is None and not c.isspace():
            header_start = line
        header.append(c)
        i += 1
    return out


def _matching_brace(code: str, i: int, line: int) -> tuple[int, int]:
    """(index, line) of the `}` that closes the `{` at index i."""
    depth = 0
    while i < len(code):
        c = code[i]
        if c == "\n":
            line += 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i, line
        i += 1
    return len(code) - 1, line


def _skip_braces(code: str, i: int, header: list[str]) -> int:
    """Appends the braced block at i to `header` (newlines kept, so lines
    still count) and returns the index after it."""
    end, _ = _matching_brace(code, i, 0)
    header.extend(code[i:end + 1])
    return end + 1


def functions_of(path: pathlib.Path, text: str) -> list[tuple[int, int, str]]:
    if path.suffix in (".h", ".cc"):
        return cxx_functions(text)
    return python_functions(text)


def long_functions(root: pathlib.Path, max_lines: int = MAX_LINES) -> list[str]:
    """'path:line: name: N lines (over M)' for each function of the tree at
    `root` longer than max_lines."""
    out = []
    for rel in cxx_files(root) + python_files(root):
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        try:
            found = functions_of(rel, text)
        except SyntaxError as e:
            out.append(f"{rel}:{e.lineno}: does not parse as Python: {e.msg}")
            continue
        for first, last, name in found:
            length = last - first + 1
            if length > max_lines:
                out.append(f"{rel}:{first}: {name}: {length} lines (over {max_lines})")
    return out


def main(argv: list[str]) -> int:
    parser = root_parser(__doc__)
    parser.add_argument("--max", type=int, default=MAX_LINES,
                        help=f"the longest a function may be (default {MAX_LINES})")
    args = parse_root_args(parser, argv)
    if args.max < 1:
        parser.error(f"--max must be at least 1, got {args.max}")
    offences = long_functions(args.root, args.max)
    return report(offences, f"{len(offences)} function(s) over {args.max} lines: split each "
                            f"into its steps")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
