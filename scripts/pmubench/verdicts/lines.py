"""Matching a function's source lines across a commit that moves code.

A profile's line is (function, file, line number) with its count per
iteration. A commit that inserts 20 lines above a function moves every
line of it down 20 without changing one: matched by number, each would
show as removed at its old number and added at its new one, with the
whole count moved both ways.

Where a function's lines in a file have other numbers in the head than in
the base, they are matched by content and order: the two lists of lines,
in line order, are aligned on their counts (difflib.SequenceMatcher: the
longest runs of lines whose counts are equal, then the same within what
is left), so an unchanged line matches its moved self however far it
moved; between two such runs, lines that differ pair in order (a changed
line is the line it was), and what is left over on one side is added or
removed. Matching by offset from the function's first line gets a pure
move right too, but one line added above the others moves every line
after it off its partner; by content and order only the added line is
unmatched (tests/python/test_compare_line_matching.py; docs/comparing.md,
"Lines across a commit that moves code", measures real commits each way).
"""

from __future__ import annotations

import difflib

Key = tuple  # (function, file tail, line)


def _by_function(lines: dict) -> dict[tuple[str, str], list[int]]:
    """(function, file) -> its line numbers, in order."""
    out: dict[tuple[str, str], list[int]] = {}
    for function, file, number in lines:
        out.setdefault((function, file), []).append(number)
    return {k: sorted(v) for k, v in out.items()}


def _pairs(base: list[float], head: list[float]) -> list[tuple[int, int]]:
    """(index in base, index in head) of the lines that are one line:
    equal runs of counts, then the rest of each changed stretch in order."""
    out = []
    matcher = difflib.SequenceMatcher(None, [round(c, 6) for c in base],
                                      [round(c, 6) for c in head], autojunk=False)
    for tag, b0, b1, h0, h1 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            out += list(zip(range(b0, b1), range(h0, h1)))
    return out


def rekey(base: dict, head: dict, head_display: dict) -> tuple[dict, dict]:
    """head's lines under base's keys where they are the same line
    (numbers moved), and a name for each line re-keyed or left alone in a
    function whose numbers moved: ({key: count}, {key: name}). Lines of a
    function whose numbers did not move keep their keys."""
    b_groups, h_groups = _by_function(base), _by_function(head)
    out: dict = {}
    names: dict = {}
    for key, count in head.items():
        group = key[:2]
        if group not in b_groups or b_groups[group] == h_groups[group]:
            out[key] = count
    for group in b_groups.keys() & h_groups.keys():
        b_numbers, h_numbers = b_groups[group], h_groups[group]
        if b_numbers == h_numbers:
            continue
        pairs = _pairs([base[(*group, n)] for n in b_numbers],
                       [head[(*group, n)] for n in h_numbers])
        paired = set()
        for bi, hi in pairs:
            b_key, h_key = (*group, b_numbers[bi]), (*group, h_numbers[hi])
            out[b_key] = head[h_key]
            paired.add(hi)
            if b_key != h_key:
                names[b_key] = _moved_name(head_display.get(h_key, str(h_key)),
                                           b_numbers[bi])
        for hi, number in enumerate(h_numbers):
            if hi not in paired:   # a line of the head only: its own key
                h_key = (*group, number, "head")
                out[h_key] = head[(*group, number)]
                names[h_key] = head_display.get((*group, number), str(h_key))
    return out, names


def _moved_name(head_name: str, base_number: int) -> str:
    """'dir/f.cc:61 (was 41) f()': the head's name, and where it was."""
    where, _, rest = head_name.partition(" ")
    return f"{where} (was {base_number}) {rest}"
