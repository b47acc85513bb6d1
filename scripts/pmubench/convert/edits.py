"""The edits of one file, applied at the end in one pass (a later edit at an
offset already edited is dropped).
"""

from __future__ import annotations


from pmubench.convert.model import Change, KIND_STATE
from pmubench.convert.patterns import STATE_RE
from pmubench.convert.lexing import line_of


class Edits:
    def __init__(self, text: str):
        self.text = text
        self.edits: dict[int, tuple[int, str, str]] = {}

    def add(self, start: int, end: int, new: str, kind: str) -> None:
        if start in self.edits:
            return
        self.edits[start] = (end, new, kind)

    def apply(self) -> tuple[str, list[Change]]:
        out = []
        changes = []
        pos = 0
        for start in sorted(self.edits):
            end, new, kind = self.edits[start]
            if start < pos:  # overlaps an earlier edit: cannot happen, but never corrupt
                continue
            out.append(self.text[pos:start])
            out.append(new)
            pos = end
            changes.append(Change(kind, line_of(self.text, start)))
        out.append(self.text[pos:])
        return "".join(out), changes


def rewrite_states(text: str, code: str, start: int, end: int,
                    edits: Edits) -> int:
    """Adds an edit for every benchmark::State in code[start:end]."""
    count = 0
    for m in STATE_RE.finditer(code, start, end):
        # `benchmark` -> `pmubench`, whatever spacing or leading :: it has.
        b = m.start() + len(m.group(1))
        edits.add(b, b + len("benchmark"), "pmubench", KIND_STATE)
        count += 1
    return count
