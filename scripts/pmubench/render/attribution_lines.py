"""Why each changed row changed (verdicts/attribution.py), as compare's
text, markdown and JSON show it: per row, the functions and source lines
whose counts per iteration moved most, base -> head, the delta and its
share of the row's change, then "elsewhere" (the rest of the change)."""

from __future__ import annotations

import html
import math

from pmubench.verdicts import attribution
from pmubench.verdicts import comparison as cmp

_HEADER = ("", "base", "head", "delta", "share")


def count(x: float | None) -> str:
    """A count per iteration: '1,204', '12.5', '0.00333'; '-' for none."""
    if x is None:
        return "-"
    if x == 0 or abs(x) >= 0.01:
        text = f"{x:,.2f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return f"{x:.3g}"


def signed(x: float) -> str:
    return ("+" if x > 0 else "") + count(x)


def share(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x * 100:.1f}%"


def kind_text(a: attribution.Attribution) -> str:
    """'exact (callgrind/instructions/)' or 'estimated from 812 -> 790
    samples of cpu-clock@100000'."""
    if a.kind == attribution.EXACT:
        return f"exact, {a.event} of the row's own steps"
    return (f"estimated from {a.samples[0]} -> {a.samples[1]} samples of "
            f"{a.event}")


def headline(a: attribution.Attribution) -> str:
    """'BM_X callgrind/instructions/: +12 per iteration, 100.0% in F()'."""
    first = a.functions[0] if a.functions else None
    where = (f", {share(first.share)} in {first.shown}{_mark(first)}"
             if first is not None else "")
    return f"{a.benchmark} {a.metric}: {signed(a.row_delta)} per iteration{where}"


def _cells(a: attribution.Attribution) -> list[tuple[str, ...]]:
    """The table's rows: functions, elsewhere, then lines."""
    rows = [(f"{m.shown}{_mark(m)}", count(m.base), count(m.head), signed(m.delta),
             share(m.share)) for m in a.functions]
    rows.append(("elsewhere", "", "", signed(a.elsewhere),
                 share(a.elsewhere / a.row_delta if a.row_delta else math.nan)))
    rows += [(f"line {m.shown}{_mark(m)}", count(m.base), count(m.head),
              signed(m.delta), share(m.share)) for m in a.lines]
    return rows


def _mark(m: attribution.Moved) -> str:
    return "" if m.status == "changed" else f" ({m.status})"


def text_lines(c: cmp.Comparison) -> list[str]:
    """The text report's section ([] when nothing is attributed)."""
    if not c.attributions and not c.attribution_notes:
        return []
    out = ["Why it changed (per iteration; functions, then source lines):"]
    for a in c.attributions:
        out.append(f"  {headline(a)} [{kind_text(a)}]")
        out += aligned([_HEADER] + _cells(a))
    out += [f"  Note: {n}" for n in c.attribution_notes]
    return out + [""]


def aligned(cells: list[tuple[str, ...]]) -> list[str]:
    """A text table indented by 4: the first column left-aligned, the
    others right-aligned."""
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return ["    " + "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                              for i, (v, w) in enumerate(zip(r, widths))).rstrip()
            for r in cells]


def _html(text: str) -> str:
    """Text safe inside an HTML element (<summary>, which markdown does not
    reach): escaped, control characters shown as \\xNN."""
    return "".join(f"\\x{ord(ch):02x}" if ord(ch) < 0x20 or ord(ch) == 0x7f
                   else ch for ch in html.escape(text, quote=True))


def _md(text: str) -> str:
    """Text safe in a markdown table cell and in HTML: every byte a profile
    name may hold is shown as itself, never as markup."""
    for ch in "\\`*_[]~":
        text = text.replace(ch, "\\" + ch)
    text = html.escape(text, quote=True).replace("|", "&#124;")
    return "".join(f"\\\\x{ord(ch):02x}" if ord(ch) < 0x20 or ord(ch) == 0x7f
                   else ch for ch in text)


def markdown_section(a: attribution.Attribution) -> list[str]:
    """One attributed row as a collapsed <details>."""
    out = [f"<details><summary>{_html(headline(a))} ({_html(kind_text(a))})"
           "</summary>", "",
           "| Function or line | Base | Head | Delta | Share |",
           "|:--|--:|--:|--:|--:|"]
    out += ["| " + " | ".join(_md(v) for v in row) + " |" for row in _cells(a)]
    return out + ["", "</details>", ""]


def _moved_json(m: attribution.Moved) -> dict:
    return {"name": m.name, "shown": m.shown, "base": m.base, "head": m.head,
            "delta": m.delta, "share": None if math.isnan(m.share) else m.share,
            "status": m.status}


def json_object(a: attribution.Attribution) -> dict:
    return {"benchmark": a.benchmark, "metric": a.metric, "kind": a.kind,
            "event": a.event, "row_delta": a.row_delta,
            "functions": [_moved_json(m) for m in a.functions],
            "lines": [_moved_json(m) for m in a.lines],
            "elsewhere": a.elsewhere, "residual": a.residual,
            "samples": {"base": a.samples[0], "head": a.samples[1]}
            if a.kind == attribution.ESTIMATED else None}
