"""Reads folded stacks, the text flame graph tools take and pmubench writes
with --pmubench_profile_out: one line per distinct stack,

    root;caller;...;leaf COUNT

frames separated by ';', the sample count after the last space (frame
names may hold spaces: "(anonymous namespace)::f()"). parse_folded() turns
it into a tree of frames with the samples under each.

A line ends at '\n' only (a '\r' before it is dropped): a frame name may
hold any other character, control characters and bytes that are not UTF-8
included (read_folded keeps those as lone surrogates, U+DC80-U+DCFF);
flame_plot shows them escaped. The count is ASCII digits, at most
MAX_COUNT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pmubench.runs import benchjson


@dataclass
class Frame:
    name: str
    total: int = 0                        # samples in this frame and below
    children: dict[str, "Frame"] = field(default_factory=dict)

    def child(self, name: str) -> "Frame":
        found = self.children.get(name)
        if found is None:
            found = self.children[name] = Frame(name)
        return found

    def ordered_children(self) -> list["Frame"]:
        """By name, as flame graphs order siblings (the x axis is not time)."""
        return [self.children[k] for k in sorted(self.children)]


# The largest count a 64-bit sample counter holds. A count is ASCII digits
# (str.isdigit() also takes '²' and other scripts' digits) of at most this
# value, so every sum and share stays a finite float.
MAX_COUNT = 2 ** 64 - 1
_COUNT = re.compile(r"[0-9]{1,20}")


def _count(text: str) -> int:
    """The sample count, or 0 when text is not one (0 is refused too)."""
    if not _COUNT.fullmatch(text):
        return 0
    value = int(text)
    return value if value <= MAX_COUNT else 0


def parse_folded(text: str, path: str) -> Frame:
    """The tree of every stack in `text`, under a root named 'all'. Raises
    benchjson.BadInput naming path and line for a line without a positive
    whole sample count (ASCII digits, at most MAX_COUNT) or with an empty
    frame."""
    root = Frame("all")
    # split("\n"), not splitlines(): that also ends a line at \x0b, \x0c,
    # \x1c-\x1e, \x85, \u2028 and \u2029, which a frame name may hold.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip(" \t\r")
        if not line:
            continue
        stack, sep, count_text = line.rpartition(" ")
        where = f"{path}:{number}"
        count = _count(count_text) if sep else 0
        if count == 0:
            raise benchjson.BadInput(
                f"{where}: expected 'frame;frame;... COUNT' with a positive "
                f"whole COUNT (ASCII digits 0-9, at most {MAX_COUNT}) after the "
                f"last space, got {_shown(raw)}; pass the file "
                "--pmubench_profile_out wrote")
        frames = stack.split(";")
        if any(not f.strip() for f in frames):
            raise benchjson.BadInput(
                f"{where}: an empty frame in {_shown(stack)} (two ';' in a row, "
                "or one at an end)")
        node = root
        node.total += count
        for name in frames:
            node = node.child(name)
            node.total += count
    if root.total == 0:
        raise benchjson.BadInput(f"{path}: holds no stacks; run with "
                                 "--pmubench_profile_callchain")
    return root


def _shown(text: str) -> str:
    """A line for a message: its first 80 characters as a Python literal
    (control characters escaped), bytes that are not UTF-8 as \\xNN."""
    short = text[:80].encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return repr(short) + (" (cut)" if len(text) > 80 else "")


def read_folded(path: str) -> Frame:
    """parse_folded of a file; an unreadable file is BadInput too. Bytes
    that are not UTF-8 stay in the frame names as lone surrogates
    (surrogateescape): a symbol is drawn, escaped, rather than refused."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            text = f.read()
    except OSError as e:
        raise benchjson.BadInput(f"{path}: cannot read folded stacks: {e}") from e
    return parse_folded(text, path)
