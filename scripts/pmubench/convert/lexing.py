"""Step 1, lexing: which characters of a C++ file are code (comments and
literals masked), matching brackets, macro arguments, line numbers, and the
names called in the code indexed once (Calls), so that looking up each case
is not another scan of the whole file.
"""

from __future__ import annotations

import bisect
import functools
import re


def code_mask(text: str) -> str:
    """text with every character of a comment, string literal or character
    literal replaced by a space (newlines kept), so that regular expressions
    over it see code only, at the same offsets as in text."""
    out = list(text)
    n = len(text)
    i = 0

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = i
            while j < n and text[j] != "\n":
                # A backslash before the newline continues the comment.
                if text[j] == "\\" and text.startswith("\n", j + 1):
                    j += 2
                    continue
                if text[j] == "\\" and text.startswith("\r\n", j + 1):
                    j += 3
                    continue
                j += 1
            blank(i, j)
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == '"':
            raw = _raw_string_prefix(text, i)
            if raw is not None:
                open_paren = text.find("(", i + 1)
                delim = text[i + 1:open_paren] if open_paren >= 0 else ""
                end = text.find(")" + delim + '"', open_paren + 1) if open_paren >= 0 else -1
                j = n if end < 0 else end + len(delim) + 2
            else:
                j = _end_of_quoted(text, i, '"')
            blank(i, j)
            i = j
        elif c == "'" and _starts_char_literal(text, i):
            j = _end_of_quoted(text, i, "'")
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def _raw_string_prefix(text: str, quote: int) -> str | None:
    """The prefix (R, u8R, LR, ...) when the '"' at quote opens a raw string."""
    m = re.search(r"(?<![\w])(?:u8|u|U|L)?R$", text[max(0, quote - 3):quote])
    return m.group(0) if m else None


def _starts_char_literal(text: str, i: int) -> bool:
    # 1'000'000: a digit separator, not a character literal.
    k = i - 1
    while k >= 0 and (text[k].isalnum() or text[k] == "_"):
        k -= 1
    word = text[k + 1:i]
    if not word:
        return True
    return word in ("L", "u", "U", "u8")  # L'x', u8'x': literals with a prefix


def _end_of_quoted(text: str, i: int, quote: str) -> int:
    j = i + 1
    n = len(text)
    while j < n:
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote or text[j] == "\n":
            return j + 1
        j += 1
    return n


def matching_paren(code: str, open_at: int) -> int:
    """Offset of the ')' that closes the '(' at open_at in masked code, or -1."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def matching_brace(code: str, open_at: int) -> int:
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return -1


def split_args(code: str, open_at: int, close_at: int) -> list[tuple[int, int]]:
    """The (start, end) spans of the comma-separated arguments between the
    parentheses at open_at and close_at, split as the preprocessor splits
    them (only parentheses group)."""
    spans = []
    depth = 0
    start = open_at + 1
    for k in range(open_at + 1, close_at):
        c = code[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((start, k))
            start = k + 1
    spans.append((start, close_at))
    return spans


@functools.lru_cache(maxsize=8)
def _line_starts(text: str) -> list[int]:
    """The offset where each line of text starts (counted once per text:
    convert asks for the line of every change)."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def line_of(text: str, offset: int) -> int:
    """The 1-based line of text that holds offset."""
    return bisect.bisect_right(_line_starts(text), offset)


# A name, then what follows it in a call or a definition: `(`, with a
# template argument list before it or not.
CALL_TAIL = r"\s*(?:<[^;{}()]*>\s*)?\("
# A member of a class defined outside it: `Table::SetUp(`, `Table<T>::~Table(`.
MEMBER_TAIL = r"\s*(?:<[^;{}()]*>\s*)?::\s*~?\w+\s*\("


class NameIndex:
    """Where each name is followed by `tail` in code, found in one scan:
    of(name) gives what re.finditer(name + tail) would, without scanning
    the whole file once per name (which made convert quadratic in its
    cases)."""

    def __init__(self, code: str, tail: str):
        self._code = code
        self._at: dict[str, list[tuple[int, int]]] = {}
        for m in re.finditer(r"(?<![\w])(\w+)(?=(" + tail + "))", code):
            self._at.setdefault(m.group(1), []).append((m.start(), m.end(2)))

    def of(self, name: str, plain: bool = False) -> list[tuple[int, int]]:
        """(start, end) of each non-overlapping `name` + tail; with plain,
        only those without a template argument list (name + `\\s*\\(`)."""
        out, end = [], -1
        for start, stop in self._at.get(name, ()):
            if start >= end:
                out.append((start, stop))
                end = stop
        if plain:
            out = [(a, b) for a, b in out if "<" not in self._code[a:b]]
        return out


_DEFINE_RE = re.compile(r"#\s*define\s+(\w+)\(([^)]*)\)")


def enclosing_define(code: str, pos: int) -> tuple[str, list[str]] | None:
    """(name, parameters) of the function-like #define whose body holds pos."""
    start = pos
    while True:
        nl = code.rfind("\n", 0, start)
        # A line that ends in a backslash continues onto the next.
        if nl > 0 and _ends_in_backslash(code, nl):
            start = nl
            continue
        break
    first = nl + 1
    while first < len(code) and code[first] in " \t":
        first += 1
    m = _DEFINE_RE.match(code, first)
    if not m or m.end() > pos:
        return None
    return m.group(1), [p.strip() for p in m.group(2).split(",")]


def _ends_in_backslash(code: str, nl: int) -> bool:
    """True when the line that ends at offset nl ends in a backslash
    (spaces after it allowed), without copying what comes before."""
    k = nl - 1
    while k >= 0 and code[k] in " \t\r":
        k -= 1
    return k >= 0 and code[k] == "\\"


def last_name(expr: str) -> str | None:
    """BM_X for `BM_X`, `ns::BM_X`, `BM_X<int, 8>`, `&BM_X`."""
    m = re.match(r"\s*&?\s*((?:::)?\s*\w+(?:\s*::\s*\w+)*)", expr)
    if not m:
        return None
    return re.split(r"\s*::\s*", m.group(1).strip())[-1] or None


def params_after(code: str, pos: int) -> tuple[int, int] | None:
    """The parenthesized list that follows pos (spaces and comments
    between), as (open, close), or None."""
    k = pos
    while k < len(code) and code[k].isspace():
        k += 1
    if k < len(code) and code[k] == "(":
        close = matching_paren(code, k)
        if close > 0:
            return k, close
    return None
