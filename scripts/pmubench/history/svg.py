"""Inline SVG drawings for the trend report: a chart of one series (every
repetition per commit, the segment means, the change points and spikes,
the commits on the x axis) and a sparkline of its per-commit medians.
Plain strings, no dependencies: a page of 2,000 series draws in seconds and
needs no image files.

The x axis names commits by their short SHA: the change points' and
spikes' first, then as many evenly spaced ones as fit without overlap.
Hovering shows a commit's SHA and subject (when the report knows it,
commits.py): on each change point's and spike's mark, and on bands over
the plot, one per commit where a commit is at least BAND_PX wide, else one
per run of neighbouring commits naming the first and the last (so a chart
of 1,000 commits carries about 170 hover targets, not 1,000)."""

from __future__ import annotations

import math
from html import escape

import numpy as np

from pmubench.history import spikes

# PAD_R leaves room for half a SHA label right of the last commit.
CHART_W, CHART_H, PAD_L, PAD_R, PAD_B, PAD_T = 760, 238, 70, 28, 44, 12
SPARK_W, SPARK_H, SPARK_POINTS = 160, 28, 160
SHORT_SHA, LABEL_PX, BAND_PX = 7, 52, 4
SPIKE_COLOUR, STEP_COLOUR = "#9467bd", "#d62728"


def _scale(lo: float, hi: float, out_lo: float, out_hi: float):
    span = (hi - lo) or (abs(hi) or 1.0)
    return lambda v: out_lo + (v - lo) / span * (out_hi - out_lo)


def _number(v: float) -> str:
    return f"{v:.4g}"


def _named(commit: str, subjects: dict) -> str:
    """'1a2b3c4d5e6f Fix the parser' (the SHA alone when the subject is unknown)."""
    subject = subjects.get(commit)
    return commit[:12] + (f" {subject}" if subject else "")


def _axes(lo: float, hi: float, n: int, y, span: tuple[str, str]) -> list[str]:  # noqa: ANN001
    base = CHART_H - PAD_B
    parts = [f'<line x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{base}" stroke="#888"/>',
             f'<line x1="{PAD_L}" y1="{base}" x2="{CHART_W}" y2="{base}" stroke="#888"/>']
    for v in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{PAD_L - 4}" y="{y(v) + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{_number(v)}</text>')
    parts.append(f'<text x="{PAD_L}" y="{CHART_H - 4}" font-size="11">{escape(span[0])}</text>')
    parts.append(f'<text x="{CHART_W - 2}" y="{CHART_H - 4}" text-anchor="end" '
                 f'font-size="11">{n} commits, to {escape(span[1])}</text>')
    return parts


def labelled(n: int, first: list[int], x) -> list[int]:  # noqa: ANN001
    """The commits the x axis names: those in `first` (change points,
    spikes), then the first, the last and evenly spaced ones, each kept
    when its label does not overlap one already kept."""
    wanted = list(first) + [0, n - 1]
    slots = max(1, int((CHART_W - PAD_L - PAD_R) // LABEL_PX))
    wanted += [round(k * (n - 1) / slots) for k in range(1, slots)]
    kept: list[int] = []
    for i in wanted:
        if 0 <= i < n and i not in kept and all(abs(x(i) - x(j)) >= LABEL_PX for j in kept):
            kept.append(i)
    return sorted(kept)


def _tick_labels(commits: list[str], first: list[int], x, subjects: dict) -> str:  # noqa: ANN001
    base = CHART_H - PAD_B
    return "".join(
        f'<g class="tick"><line x1="{x(i):.1f}" y1="{base}" x2="{x(i):.1f}" y2="{base + 4}" '
        f'stroke="#888"/><text x="{x(i):.1f}" y="{base + 15}" text-anchor="middle" '
        f'font-size="10" font-family="monospace">{escape(commits[i][:SHORT_SHA])}'
        f"<title>{escape(_named(commits[i], subjects))}</title></text></g>"
        for i in labelled(len(commits), first, x))


def _bands(commits: list[str], x, subjects: dict) -> str:  # noqa: ANN001
    """Transparent hover targets over the plot, each naming its commits."""
    n = len(commits)
    per = max(1, math.ceil(n * BAND_PX / (CHART_W - PAD_L - PAD_R)))
    half = (x(1) - x(0)) / 2 if n > 1 else 6
    out = []
    for a in range(0, n, per):
        b = min(a + per, n) - 1
        name = _named(commits[a], subjects)
        if b > a:
            name += f" .. {_named(commits[b], subjects)} ({b - a + 1} commits)"
        out.append(f'<rect x="{x(a) - half:.1f}" y="{PAD_T}" width="{x(b) - x(a) + 2 * half:.1f}" '
                   f'height="{CHART_H - PAD_B - PAD_T}"><title>{escape(name)}</title></rect>')
    return '<g class="hover" fill="transparent">' + "".join(out) + "</g>"


def is_spike(change: tuple) -> bool:
    """change: (index, p, before, after, kind), detect.State's tuple."""
    return change[4] == "spike"


def spike_points(medians: list[float], changes: list[tuple]) -> set[int]:
    """The commits of the series' spikes (spikes.span of each)."""
    x = np.asarray(medians, dtype=np.float64)
    return {i for c in changes if is_spike(c)
            for i in spikes.span(x, c[0], c[2], c[3])}


def segment_means(medians: list[float], changes: list[tuple]) -> list[tuple[int, int, float]]:
    """(first, end, mean) of each level between the step change points,
    the mean of its medians without the spikes' commits."""
    left_out = spike_points(medians, changes)
    edges = [0] + [c[0] for c in changes if not is_spike(c)] + [len(medians)]
    out = []
    for a, b in zip(edges, edges[1:]):
        kept = [medians[i] for i in range(a, b) if i not in left_out]
        if kept:
            out.append((a, b, float(np.mean(kept))))
    return out


def _marks(medians: list[float], changes: list[tuple], commits: list[str], x, y,  # noqa: ANN001
           subjects: dict) -> str:
    """The step change points (red dashed lines), the spikes' commits
    (purple rings) and the segment means (orange), each with its words."""
    out = []
    for c in changes:
        if is_spike(c):
            continue
        out.append(f'<line class="step" x1="{x(c[0]) - 0.5:.1f}" y1="{PAD_T}" '
                   f'x2="{x(c[0]) - 0.5:.1f}" y2="{CHART_H - PAD_B}" stroke="{STEP_COLOUR}" '
                   f'stroke-dasharray="4 3"><title>change point: '
                   f"{escape(_named(commits[c[0]], subjects))}</title></line>")
    for i in sorted(spike_points(medians, changes)):
        out.append(f'<circle class="spike" cx="{x(i):.1f}" cy="{y(medians[i]):.1f}" r="5" '
                   f'fill="none" stroke="{SPIKE_COLOUR}" stroke-width="2"><title>spike: '
                   f"{escape(_named(commits[i], subjects))}</title></circle>")
    for a, b, mean in segment_means(medians, changes):
        out.append(f'<line class="mean" x1="{x(a):.1f}" y1="{y(mean):.1f}" x2="{x(b - 1):.1f}" '
                   f'y2="{y(mean):.1f}" stroke="#ff7f0e" stroke-width="2"><title>mean '
                   f"{_number(mean)}, {commits[a][:SHORT_SHA]} to {commits[b - 1][:SHORT_SHA]}"
                   "</title></line>")
    return "".join(out)


def chart(values: list[list[float]], changes: list[tuple], commits: list[str],
          title: str, span: tuple[str, str] = ("", ""), subjects: dict | None = None) -> str:
    """values: the repetitions of each commit, oldest first; changes:
    (index, p, before, after, kind) of the series' change points, kind
    "step" or "spike"; commits: each point's SHA; span: the first and last
    commit's dates; subjects: SHA -> subject, where known."""
    subjects = subjects or {}
    n = len(values)
    flat = [v for reps in values for v in reps] or [0.0]
    lo, hi = min(flat), max(flat)
    x = _scale(0, max(n - 1, 1), PAD_L + 6, CHART_W - PAD_R)
    y = _scale(lo, hi, CHART_H - PAD_B - 4, PAD_T + 4)
    dots = "".join(f"M{x(i):.1f} {y(v):.1f}h0" for i, reps in enumerate(values)
                   for v in reps)
    medians = [float(np.median(r)) for r in values]
    line = " ".join(f"{x(i):.1f},{y(m):.1f}" for i, m in enumerate(medians))
    named = [c[0] for c in changes]
    return (f'<svg class="chart" viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" '
            f'height="{CHART_H}" role="img" aria-label="{escape(title)}">'
            + "".join(_axes(lo, hi, n, y, span))
            + (_tick_labels(commits, named, x, subjects) + _bands(commits, x, subjects)
               if n else "")
            + f'<polyline points="{line}" fill="none" stroke="#9ecae1" stroke-width="1"/>'
            + f'<path d="{dots}" stroke="#1f77b4" stroke-width="3" stroke-linecap="round"/>'
            + _marks(medians, changes, commits, x, y, subjects) + "</svg>")


def sparkline(medians: np.ndarray, changes: list[tuple]) -> str:
    """The medians, at most SPARK_POINTS of them (every k-th), change
    points as red ticks, spikes as purple ones."""
    n = len(medians)
    if n == 0:
        return ""
    step = max(1, -(-n // SPARK_POINTS))
    picked = np.asarray(medians)[::step]
    lo, hi = float(np.min(medians)), float(np.max(medians))
    x = _scale(0, max(n - 1, 1), 1, SPARK_W - 1)
    y = _scale(lo, hi, SPARK_H - 2, 2)
    line = " ".join(f"{x(i * step):.0f},{y(v):.1f}" for i, v in enumerate(picked))
    ticks = {kind: "".join(f"M{x(c[0]):.0f} 0v{SPARK_H}" for c in changes
                           if is_spike(c) == (kind == "spike"))
             for kind in ("step", "spike")}
    return (f'<svg class="spark" viewBox="0 0 {SPARK_W} {SPARK_H}" width="{SPARK_W}" '
            f'height="{SPARK_H}"><polyline points="{line}" fill="none" stroke="#1f77b4"/>'
            + "".join(f'<path d="{d}" stroke="{STEP_COLOUR if k == "step" else SPIKE_COLOUR}"/>'
                      for k, d in ticks.items() if d) + "</svg>")
