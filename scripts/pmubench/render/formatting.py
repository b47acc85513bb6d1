"""Numbers as short text: values with their unit, changes, intervals, p."""

from __future__ import annotations

import math

from pmubench.verdicts import comparison, gates, stats

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


def interval(iv: stats.Interval | None, alpha: float) -> str:
    """'[+4.1%, +6.0%]', with its level when it is below 1 - alpha."""
    if iv is None:
        return "-"
    text = f"[{iv.low * 100:+.1f}%, {iv.high * 100:+.1f}%]"
    if _below_level(iv, alpha):
        text += f" @{iv.level * 100:.0f}%"
    return text


def _below_level(iv: stats.Interval | None, alpha: float) -> bool:
    """The interval exists and its level is below 1 - alpha (too few
    repetitions to reach it): such a row says its own level."""
    return iv is not None and iv.level < 1.0 - alpha - 1e-9


def interval_heading(rows, alpha: float) -> str:
    """'95% Hodges-Lehmann interval', and where some rows' samples are too
    small to reach that level, that those rows say their own ('@67%')."""
    text = f"{stats.confidence_label(alpha)} Hodges-Lehmann interval"
    if any(_below_level(r.interval, alpha) for r in rows):
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
    elif row.verdict == comparison.NOT_GATED and gates.changed_beyond(row):
        text += " (changed beyond its threshold)"
    return text


def work_note(row: comparison.Row) -> str:
    """'; work changed: label "74.00%" -> "73.00%"' for a row whose
    benchmark's work differs between the files (verdicts/work.py), ''
    otherwise: appended to the row's verdict in text and markdown."""
    return f"; work changed: {row.work.describe()}" if row.work else ""


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
