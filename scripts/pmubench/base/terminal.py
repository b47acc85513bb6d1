"""Text for a terminal: names from a run file or a database may hold control
characters (an escape sequence, a carriage return, a newline that forges a
line of its own) or bidirectional overrides that reorder what is shown.
printable() writes each as a visible escape, so a line printed is the line
the tool wrote."""

from __future__ import annotations

import unicodedata

# Unicode's explicit bidirectional embeddings, overrides and isolates
# (UAX #9): shown, they reorder the text around them.
_BIDI = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))


# Control characters, line and paragraph separators, lone surrogates.
_ESCAPED = ("Cc", "Zl", "Zp", "Cs")


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """text with every control character (Unicode category Cc: C0, DEL, C1),
    line and paragraph separator (U+2028, U+2029), lone surrogate (which no
    terminal encoding can write) and bidirectional control written as
    \\xNN or \\uNNNN."""
    if text.isprintable():
        return text
    return "".join(_escape(ch) if ch in _BIDI or unicodedata.category(ch) in _ESCAPED
                   else ch
                   for ch in text)
