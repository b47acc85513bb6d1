"""A flame graph of a folded-stacks tree (folded.py) as a self-contained SVG.

Each frame is a box as wide as its share of the samples, its callees
stacked above it, siblings ordered by name (the x axis is not time). A
box's tooltip (<title>) gives the frame, its samples and its share. Frames
narrower than MIN_WIDTH_PX are left out and counted in a note under the
graph. Colours are a hash of the frame's name, so a function keeps its
colour from one graph to the next.

Every text is XML-escaped, and characters XML 1.0 cannot hold at all, even
as a character reference (control characters but tab and newline, U+FFFE,
U+FFFF, and the bytes that were not UTF-8, read as lone surrogates), are
shown as a visible escape, \\x01 or \\uffff; a carriage return too (XML
reads it as a newline). The box's tooltip then says the name holds escapes.
"""

from __future__ import annotations

import hashlib
import re
from html import escape as _html_escape
from typing import Any

from pmubench.runs.folded import Frame

WIDTH_PX = 1200
ROW_PX = 17
MIN_WIDTH_PX = 0.5
_CHAR_PX = 6.6   # about one character of the 11 px monospace label


# What XML 1.0's Char production leaves out (tab and newline are allowed;
# carriage return is allowed but read as a newline), plus lone surrogates.
_NOT_XML = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]")
ESCAPE_NOTE = "characters XML cannot hold are shown escaped (\\xNN, \\uNNNN)"


def _visible(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:   # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_safe(text: str) -> str:
    """text with every character XML 1.0 cannot hold as a visible escape."""
    return _NOT_XML.sub(lambda m: _visible(m.group()), text)


def escape(text: str) -> str:
    """XML character data or attribute value for any text."""
    return _html_escape(xml_safe(text))


def _color(name: str) -> str:
    digest = hashlib.md5(name.encode("utf-8", "surrogateescape")).digest()
    # Warm hues (red to yellow), as flame graphs are usually drawn.
    return f"rgb({205 + digest[0] % 50},{80 + digest[1] % 140},{digest[2] % 60})"


def _label(name: str, width: float) -> str:
    fits = int((width - 6) / _CHAR_PX)
    if fits < 3:
        return ""
    return name if len(name) <= fits else name[:fits - 2] + ".."


def layout(root) -> tuple[list[tuple[int, float, float, Any]], int]:
    """Where each frame of a tree goes: (depth, x, width, frame) boxes, the
    root at depth 0, and how many frames were too narrow to draw (a frame
    of no width, one only a differential graph's baseline has, is not
    counted: the graph names those itself). A frame
    is anything with a name, a total (its width) and ordered_children():
    folded.Frame, or diff_flame.DiffNode (widths from the head)."""
    boxes: list[tuple[int, float, float, Any]] = []
    hidden = 0
    scale = WIDTH_PX / root.total if root.total else 0.0
    stack = [(0, 0.0, root)]
    while stack:
        depth, x, frame = stack.pop()
        width = frame.total * scale
        if width < MIN_WIDTH_PX:
            hidden += 1 if frame.total else 0   # none in the head: not "narrow"
            continue
        boxes.append((depth, x, width, frame))
        child_x = x
        for child in frame.ordered_children():
            stack.append((depth + 1, child_x, child))
            child_x += child.total * scale
    return sorted(boxes, key=lambda b: (b[0], b[1])), hidden


def svg_open(height: int, title: str) -> list[str]:
    """The SVG's opening tag and its title line."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH_PX}" '
            f'height="{height}" viewBox="0 0 {WIDTH_PX} {height}" '
            'font-family="monospace" font-size="11">',
            f'<text x="{WIDTH_PX / 2:.1f}" y="18" text-anchor="middle" '
            f'font-size="14">{escape(title)}</text>']


def svg_height(boxes: list, top: int = 30, bottom: int = 30) -> int:
    depth_max = max((d for d, _, _, _ in boxes), default=0)
    return top + (depth_max + 1) * ROW_PX + bottom


def box(depth: int, depth_max: int, x: float, width: float, name: str,
        tip: str, fill: str, attrs: str = "", top: int = 30) -> str:
    """One frame: a <g> with its tooltip, its box and its label. name and
    tip are raw text (escaped here); a tip of a name with characters XML
    cannot hold says so."""
    y = top + (depth_max - depth) * ROW_PX
    shown = xml_safe(name)
    if shown != name:
        tip += f"\n{ESCAPE_NOTE}"
    return (f'<g class="frame"{attrs}><title>{escape(tip)}</title>'
            f'<rect x="{x:.3f}" y="{y}" width="{width:.3f}" height="{ROW_PX - 1}" '
            f'fill="{fill}" rx="2"/>'
            f'<text x="{x + 3:.3f}" y="{y + ROW_PX - 5}">'
            f'{escape(_label(shown, width))}</text></g>')


def flame_svg(root: Frame, title: str) -> tuple[str, int]:
    """The SVG text, and how many frames were too narrow to draw."""
    boxes, hidden = layout(root)
    depth_max = max(d for d, _, _, _ in boxes)
    height = svg_height(boxes)
    out = svg_open(height, title)
    for depth, x, width, frame in boxes:
        share = frame.total / root.total
        tip = f"{xml_safe(frame.name)} ({frame.total} samples, {100 * share:.2f}%)"
        out.append(box(depth, depth_max, x, width, frame.name, tip,
                       _color(frame.name), f' data-samples="{frame.total}"'))
    note = (f"{root.total} samples; {hidden} frame(s) narrower than "
            f"{MIN_WIDTH_PX:g} px not drawn" if hidden else f"{root.total} samples")
    out.append(f'<text x="4" y="{height - 10}">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n", hidden


def diff_color(base: float | None, head: float | None) -> str:
    """Red where a frame grew, blue where it shrank, deeper by the relative
    change (full at +-100%); a frame only the contender has is full red,
    an unchanged one near white (Brendan Gregg's differential flame graphs)."""
    b, h = base or 0.0, head or 0.0
    if h == b:
        return "rgb(235,235,235)"
    grew = h > b
    strength = 1.0 if not b else min(1.0, abs(h - b) / abs(b))
    fade = round(225 - 205 * strength)
    return f"rgb(255,{fade},{fade})" if grew else f"rgb({fade},{fade},255)"


def _number(value: float | None) -> str:
    return "none" if value is None else f"{value:,.6g}"


def diff_tip(node) -> str:
    """A frame's tooltip: base -> head per iteration and the change."""
    delta = (node.head or 0.0) - (node.base or 0.0)
    tip = (f"{xml_safe(node.name)}\nbase {_number(node.base)} -> head "
           f"{_number(node.head)} per iteration, delta {delta:+,.6g}")
    if node.base:
        tip += f" ({100 * delta / node.base:+.2f}%)"
    if node.base is None:
        tip += "\nadded in head (not in base)"
    gone = node.gone()
    if gone:
        tip += "\nonly in base (no head width): " + ", ".join(
            f"{xml_safe(g.name)} ({_number(g.base)})" for g in gone[:20])
        tip += f" and {len(gone) - 20} more" if len(gone) > 20 else ""
    return tip


def diff_flame_svg(flame) -> str:
    """A plan_diff_flame.DiffFlame as SVG text: the flame_svg layout with
    widths from the contender, diff_color fills, diff_tip tooltips, a '+'
    before the label of a frame only the contender has, and the frames only
    the baseline has named under the graph."""
    top = 48
    boxes, hidden = layout(flame.tree)
    depth_max = max((d for d, _, _, _ in boxes), default=0)
    height = svg_height(boxes, top, 46)
    out = svg_open(height, flame.title)
    out.insert(1, f"<title>{escape(flame.title + '; ' + flame.exactness)}</title>")
    out.append(f'<text x="{WIDTH_PX / 2:.1f}" y="36" text-anchor="middle">'
               f"{escape(flame.exactness)}</text>")
    for depth, x, width, node in boxes:
        added = node.base is None
        attrs = (f' data-base="{_number(node.base)}" data-head="{_number(node.head)}"'
                 + (' data-added="1"' if added else ""))
        out.append(box(depth, depth_max, x, width, ("+" if added else "") + node.name,
                       diff_tip(node), diff_color(node.base, node.head), attrs, top))
    gone = flame.tree.gone()
    notes = [f"only in base (no head width): {len(gone)} frame(s): " + ", ".join(
        xml_safe(g.name) for g in gone[:8]) + (" ..." if len(gone) > 8 else "")
             if gone else "no frame vanished"]
    if hidden:
        notes.append(f"{hidden} frame(s) narrower than {MIN_WIDTH_PX:g} px not drawn")
    out.append(f'<text x="4" y="{height - 26}">{escape(notes[0])}</text>')
    out.append(f'<text x="4" y="{height - 10}">{escape("; ".join(notes[1:]))}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
