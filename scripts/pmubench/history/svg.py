"""Inline SVG drawings for the trend report: a chart of one series (every
repetition per commit, the segment means, the change points) and a
sparkline of its per-commit medians. Plain strings, no dependencies: a page
of 2,000 series draws in seconds and needs no image files."""

from __future__ import annotations

from html import escape

import numpy as np

CHART_W, CHART_H, PAD_L, PAD_B, PAD_T = 760, 220, 70, 28, 12
SPARK_W, SPARK_H, SPARK_POINTS = 160, 28, 160


def _scale(lo: float, hi: float, out_lo: float, out_hi: float):
    span = (hi - lo) or (abs(hi) or 1.0)
    return lambda v: out_lo + (v - lo) / span * (out_hi - out_lo)


def _number(v: float) -> str:
    return f"{v:.4g}"


def _axes(lo: float, hi: float, n: int, y, span: tuple[str, str]) -> list[str]:  # noqa: ANN001
    parts = [f'<line x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{CHART_H - PAD_B}" '
             'stroke="#888"/>',
             f'<line x1="{PAD_L}" y1="{CHART_H - PAD_B}" x2="{CHART_W}" '
             f'y2="{CHART_H - PAD_B}" stroke="#888"/>']
    for v in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{PAD_L - 4}" y="{y(v) + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{_number(v)}</text>')
    parts.append(f'<text x="{PAD_L}" y="{CHART_H - 8}" font-size="11">{escape(span[0])}</text>')
    parts.append(f'<text x="{CHART_W - 2}" y="{CHART_H - 8}" text-anchor="end" '
                 f'font-size="11">{n} commits, to {escape(span[1])}</text>')
    return parts


def chart(values: list[list[float]], changes: list[tuple], commits: list[str],
          title: str, span: tuple[str, str] = ("", "")) -> str:
    """values: the repetitions of each commit, oldest first; changes:
    (index, p, before, after) of the series' change points; span: the
    first and last commit's dates."""
    n = len(values)
    flat = [v for reps in values for v in reps] or [0.0]
    lo, hi = min(flat), max(flat)
    x = _scale(0, max(n - 1, 1), PAD_L + 6, CHART_W - 6)
    y = _scale(lo, hi, CHART_H - PAD_B - 4, PAD_T + 4)
    dots = "".join(f"M{x(i):.1f} {y(v):.1f}h0" for i, reps in enumerate(values)
                   for v in reps)
    medians = [float(np.median(r)) for r in values]
    line = " ".join(f"{x(i):.1f},{y(m):.1f}" for i, m in enumerate(medians))
    edges = [0] + [c[0] for c in changes] + [n]
    segments = "".join(
        f"M{x(a):.1f} {y(float(np.mean(medians[a:b]))):.1f}H{x(b - 1):.1f}"
        for a, b in zip(edges, edges[1:]) if b > a)
    marks = "".join(
        f'<line x1="{x(c[0]) - 0.5:.1f}" y1="{PAD_T}" x2="{x(c[0]) - 0.5:.1f}" '
        f'y2="{CHART_H - PAD_B}" stroke="#d62728" stroke-dasharray="4 3">'
        f'<title>{escape(commits[c[0]][:12])}</title></line>' for c in changes)
    return (f'<svg class="chart" viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" '
            f'height="{CHART_H}" role="img" aria-label="{escape(title)}">'
            + "".join(_axes(lo, hi, n, y, span))
            + f'<polyline points="{line}" fill="none" stroke="#9ecae1" stroke-width="1"/>'
            + f'<path d="{dots}" stroke="#1f77b4" stroke-width="3" stroke-linecap="round"/>'
            + f'<path d="{segments}" stroke="#ff7f0e" stroke-width="2" fill="none"/>'
            + marks + "</svg>")


def sparkline(medians: np.ndarray, changes: list[tuple]) -> str:
    """The medians, at most SPARK_POINTS of them (every k-th), change
    points as red ticks."""
    n = len(medians)
    if n == 0:
        return ""
    step = max(1, -(-n // SPARK_POINTS))
    picked = np.asarray(medians)[::step]
    lo, hi = float(np.min(medians)), float(np.max(medians))
    x = _scale(0, max(n - 1, 1), 1, SPARK_W - 1)
    y = _scale(lo, hi, SPARK_H - 2, 2)
    line = " ".join(f"{x(i * step):.0f},{y(v):.1f}" for i, v in enumerate(picked))
    ticks = "".join(f"M{x(c[0]):.0f} 0v{SPARK_H}" for c in changes)
    return (f'<svg class="spark" viewBox="0 0 {SPARK_W} {SPARK_H}" width="{SPARK_W}" '
            f'height="{SPARK_H}"><polyline points="{line}" fill="none" stroke="#1f77b4"/>'
            + (f'<path d="{ticks}" stroke="#d62728"/>' if ticks else "") + "</svg>")
