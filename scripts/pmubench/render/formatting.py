"""Numbers as short text: values with their unit, changes, intervals, p;
exact counts with all their digits ('4,075,360 -> 4,075,361 (+1,
+0.00002%)'); names safe to print (printable, md_text, md_code)."""

from __future__ import annotations

import math
import operator
import re

# Names reach every terminal line through base/terminal.py's one rule.
from pmubench.base.terminal import printable  # noqa: F401 - the renderers use it from here
from pmubench.verdicts import comparison, stats

_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def value(x: float, unit: str = "") -> str:
    """4 significant digits; k/M/G/T above 1000 ('20.49k'), the time unit
    appended for times ('1.234 ns')."""
    if x == 0:
        text = "0"
    elif abs(x) >= 1e3:
        for scale, suffix in _SI:
            if abs(x) >= scale:
                text = f"{x / scale:.4g}{suffix}"
                break
    elif abs(x) < 1e-3:
        text = f"{x:.3g}"
    else:
        text = f"{x:.4g}"
    return f"{text} {unit}" if unit else text


def change(x: float) -> str:
    """'+5.00%', '-0.12%', '+inf%' (the baseline was 0)."""
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "+inf%" if x > 0 else "-inf%"
    pct = x * 100.0
    if abs(pct) >= 100:
        return f"{pct:+.0f}%"
    return f"{pct:+.2f}%"


def exact(x: float) -> str:
    """An exact count with all its digits: '4,075,360'; a count per
    iteration that is not whole keeps up to 6 decimals ('1,204.5')."""
    if not math.isfinite(x):
        return value(x)
    if x == int(x):
        return f"{int(x):,}"
    return f"{x:,.6f}".rstrip("0").rstrip(".")


def exact_pct(x: float) -> str:
    """A relative change in percent down to its first significant digit
    ('+0.00002%'; '+1.25%' as change() from 0.01% up)."""
    pct = x * 100.0
    if not math.isfinite(x) or pct == 0 or abs(pct) >= 0.01:
        return change(x)
    decimals = -math.floor(math.log10(abs(pct)))
    return f"{pct:+.{decimals}f}%"


def center(row: comparison.Row, side: comparison.Side) -> str:
    """A side's center as a table shows it: exact counts with every digit."""
    return exact(side.center) if row.exact else value(side.center, row.unit)


def row_change(row: comparison.Row) -> str:
    """The change as a table shows it: '+1, +0.00002%' for an exact count,
    '+5.00%' otherwise."""
    if not row.exact or not math.isfinite(row.change):
        return change(row.change)
    delta = row.contender.center - row.baseline.center
    return f"{'-' if delta < 0 else '+'}{exact(abs(delta))}, {exact_pct(row.change)}"


def row_move(row: comparison.Row) -> str:
    """'4,075,360 -> 4,075,361 (+1, +0.00002%)' for an exact count, the
    change ('+5.00%') otherwise: what a one-line summary says of a row."""
    if not row.exact or not math.isfinite(row.change):
        return change(row.change)
    return (f"{exact(row.baseline.center)} -> {exact(row.contender.center)} "
            f"({row_change(row)})")


def interval(iv: stats.Interval | None, alpha: float) -> str:
    """'[+4.1%, +6.0%]', with its level when it is below 1 - alpha."""
    if iv is None:
        return "-"
    text = f"[{iv.low * 100:+.1f}%, {iv.high * 100:+.1f}%]"
    if _below_level(iv, alpha):
        text += f" @{iv.level * 100:.0f}%"
    return text


_INTERVAL = operator.attrgetter("interval")
_LEVEL = operator.attrgetter("level")


def _below_level(iv: stats.Interval | None, alpha: float) -> bool:
    """The interval exists and its level is below 1 - alpha (too few
    repetitions to reach it): such a row says its own level."""
    return iv is not None and _level_below(iv.level, alpha)


def _level_below(level: float, alpha: float) -> bool:
    """An interval's level is below 1 - alpha."""
    return level < 1.0 - alpha - 1e-9


def interval_heading(rows, alpha: float, confidence: str) -> str:
    """'95% Hodges-Lehmann interval' (confidence: the level's label), and
    where some rows' samples are too small to reach that level, that those
    rows say their own ('@67%')."""
    text = f"{confidence} Hodges-Lehmann interval"
    # Each level once, found in C: rows share a few, and a suite has
    # hundreds of thousands of rows.
    levels = set(map(_LEVEL, filter(None, map(_INTERVAL, rows))))
    if any(_level_below(level, alpha) for level in levels):
        text += (" (rows marked @N% have too few repetitions for it: their"
                 " interval is the widest the samples give, at level N%)")
    return text


def p_value(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def verdict(row: comparison.Row) -> str:
    """The verdict with its mode when the mode weakens it; a row not gated
    whose change is beyond its class's threshold says so."""
    text = row.verdict
    if row.mode != comparison.U_TEST and row.verdict != comparison.NOT_GATED:
        text += f" ({row.mode})"
    elif row.verdict == comparison.NOT_GATED and row.changed_beyond:
        text += " (changed beyond its threshold)"
    return text


def work_note(row: comparison.Row) -> str:
    """'; work changed: label "74.00%" -> "73.00%"' for a row whose
    benchmark's work differs between the files (verdicts/work.py), ''
    otherwise: appended to the row's verdict in text and markdown."""
    return f"; work changed: {row.work.describe()}" if row.work else ""


def _exact_cells(r: comparison.Row, seen: dict) -> tuple[str, str, str]:
    """center(r, baseline), center(r, contender) and row_change(r) of an
    exact row, made once for each (centers, change): counts repeat (a
    suite's zero counts). A change of 0 is keyed with its sign, which
    row_change shows ('-0.00%'); exact() shows -0.0 as 0."""
    change = r.change
    b, c = r.baseline.center, r.contender.center
    key = (b, c, change) if change else (b, c, change, math.copysign(1.0, change))
    done = seen.get(key)
    if done is None:
        done = seen[key] = (exact(b), exact(c), row_change(r))
    return done


def row_cells(rows: list[comparison.Row], alpha: float) -> list[tuple[str, ...]]:
    """Each row's cells, as a table shows them: its benchmark, center(row,
    baseline), center(row, contender), row_change, interval, p_value and
    verdict + work_note, the same text. What many rows share (a p-value of
    the exact test, a verdict, an interval's level, an exact row's counts)
    is made once: a suite of 180,000 runs a file has hundreds of thousands
    of rows."""
    p_texts: dict = {None: "-"}
    verdicts: dict = {}
    levels: dict = {}
    counts: dict = {}
    out = []
    append = out.append
    for r in rows:
        if r.exact:
            b, c, moved = _exact_cells(r, counts)
        else:
            # value() and change() of the common case (a center from 0.001
            # to 1000, a change within 100%) written here, the same text
            # without their calls; any other through them.
            unit, x, y = r.unit, r.baseline.center, r.contender.center
            sep = " " if unit else ""
            b = f"{x:.4g}{sep}{unit}" if 1e-3 <= abs(x) < 1e3 else value(x, unit)
            c = f"{y:.4g}{sep}{unit}" if 1e-3 <= abs(y) < 1e3 else value(y, unit)
            pct = r.change * 100.0
            moved = f"{pct:+.2f}%" if -100.0 < pct < 100.0 else change(r.change)
        iv = r.interval
        if iv is None:
            ci = "-"
        else:
            level = levels.get(iv.level)
            if level is None:
                level = levels[iv.level] = (f" @{iv.level * 100:.0f}%"
                                            if _below_level(iv, alpha) else "")
            ci = f"[{iv.low * 100:+.1f}%, {iv.high * 100:+.1f}%]{level}"
        p = r.p_value
        p_text = p_texts.get(p)
        if p_text is None:
            p_text = p_texts[p] = p_value(p)
        key = (r.verdict, r.mode, r.changed_beyond)
        said = verdicts.get(key)
        if said is None:
            said = verdicts[key] = verdict(r)
        append((r.benchmark, b, c, moved, ci, p_text,
                said + work_note(r) if r.work else said))
    return out


def threshold(t) -> str:
    if t.pct is None:
        return "not gated"
    return f"{t.pct:g}%" + ("" if t.source == "default" else f" (--threshold {t.source})")


def metric_heading(row: comparison.Row) -> str:
    """'instructions (lower is better; threshold 1%)', with 'simulated,
    exact' for a simulator's count."""
    simulated = "simulated, exact; " if row.threshold.simulated else ""
    return (f"{row.metric} ({simulated}{direction(row.higher_is_better)}; "
            f"threshold {threshold(row.threshold)})")


def direction(higher_is_better: bool) -> str:
    return "higher is better" if higher_is_better else "lower is better"


def names(items: list[str], limit: int = 12) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


# Markdown's inline punctuation (CommonMark 0.30, section 2.4) that could
# start a link, an image, code, emphasis or a table cell ('_' left as it is:
# GFM takes no emphasis inside a word, and names are full of it).
_MD_PUNCT = re.compile(r"([\\`*\[\]~|])")


def md_text(text: str) -> str:
    """text shown as itself in markdown and in the HTML around it: markdown
    punctuation backslash-escaped, '<' and '&' as entities (no tag, image
    or '</details>' is made; '>' alone makes nothing inside a line),
    control characters as \\xNN."""
    text = _MD_PUNCT.sub(r"\\\1", printable(text))
    return text.replace("&", "&amp;").replace("<", "&lt;")


def md_code(text: str) -> str:
    """text as an inline code span in a table cell (CommonMark 0.30, 6.1):
    fenced by one more backtick than its longest run, '|' escaped (GFM
    tables), control characters as \\xNN; inside it '<img>' and links are
    text."""
    text = printable(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
