"""Draws the report's PNGs with matplotlib's Agg backend.

The only module that imports matplotlib. plan.py decides each figure and
what it shows (a model.Drawing); draw_figures() draws them: each
<kind>_figure function writes one PNG (sweep_figure: a family that sweeps
an argument, its PNG named <family>.scaling.png; bars_figure,
spread_figure, comparison_figure, profile_figure) and decides nothing. Sizes
are for a laptop screen: 11 inches wide at 100 dpi (1100 px), legends below
the panels so they never cover data.

Layout is computed here, in inches, from what a figure holds (panels, rows,
the longest row label), not measured by tight_layout: that drew every tick
label twice and was half the cost of a report. A figure is a bare
matplotlib.figure.Figure (no pyplot state to register and close).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot
import matplotlib.transforms as mtransforms  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator  # noqa: E402

from pmubench.verdicts import comparison as pm_comparison  # noqa: E402
from pmubench.report import series  # noqa: E402
from pmubench.report.sizes import (  # noqa: E402
    PANEL_PAD_IN as _PANEL_PAD_IN, ROW_IN as _ROW_IN, SUPTITLE_IN as _SUPTITLE_IN)

WIDTH_IN = 11.0
DPI = 100
_COUNTER_COLOR = "#4c72b0"
_DERIVED_COLOR = "#8172b2"
_MARKERS = ("o", "s", "^", "D", "v", "P")

matplotlib.rcParams.update({
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
    "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": DPI,
    # A fixed title height: matplotlib otherwise measures every panel's
    # tick labels to place its title (a third of a sweep figure's cost).
    "axes.titley": 1.0,
})

# Inches: a character of an 8-point tick label (DejaVu Sans, capitals and
# '_' included); a figure's title band and the highest a figure may be
# drawn are in sizes.py.
_CHAR_IN = 0.072
# Row labels (benchmark names) longer than this are cut in the middle.
_MAX_LABEL_CHARS = 64


def _save(fig: Figure, path: str) -> None:
    fig.savefig(path, dpi=DPI, format="png")


@dataclass(frozen=True)
class _Grid:
    """A grid of equal panels, every distance in inches."""
    count: int          # panels
    cols: int
    panel_w: float
    panel_h: float
    left: float         # room for the first column's y labels
    wspace: float       # between columns (the next one's y labels)
    hspace: float       # between rows (x labels, then the next title)
    top: float = _SUPTITLE_IN + 0.25
    bottom: float = 0.6
    right: float = 0.2

    @property
    def rows(self) -> int:
        return math.ceil(self.count / self.cols)

    @property
    def width(self) -> float:
        return self.left + self.cols * self.panel_w + (self.cols - 1) * self.wspace + self.right

    @property
    def height(self) -> float:
        return (self.top + self.rows * self.panel_h + (self.rows - 1) * self.hspace
                + self.bottom)


def _grid_figure(grid: _Grid, title: str):
    """The figure and its panels (the unused cells of the last row hidden)."""
    fig = Figure(figsize=(grid.width, grid.height), dpi=DPI)
    w, h = grid.width, grid.height
    axes = fig.subplots(grid.rows, grid.cols, squeeze=False, gridspec_kw={
        "left": grid.left / w, "right": 1 - grid.right / w,
        "top": 1 - grid.top / h, "bottom": grid.bottom / h,
        "wspace": grid.wspace / grid.panel_w, "hspace": grid.hspace / grid.panel_h})
    flat = list(axes.flat)
    for ax in flat[grid.count:]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=11, y=1 - 0.12 / h, va="top")
    return fig, flat[:grid.count]


def _columns_width(cols: int, left: float, wspace: float, right: float = 0.2) -> float:
    """The panel width that fills WIDTH_IN (at least 1.6 inches)."""
    return max(1.6, (WIDTH_IN - left - right - (cols - 1) * wspace) / cols)


def _cut(label: str) -> str:
    if len(label) <= _MAX_LABEL_CHARS:
        return label
    half = (_MAX_LABEL_CHARS - 1) // 2
    return label[:half] + "…" + label[-(_MAX_LABEL_CHARS - 1 - half):]


def _label_width(labels: list[str]) -> float:
    """Inches of the longest row label, with its tick."""
    return 0.25 + _CHAR_IN * max((len(label) for label in labels), default=4)


def _scaled(metric: str, values: list[float]) -> tuple[str, float]:
    """(unit label, divisor) of a panel; times get ns/us/ms/s."""
    unit = series.metric_unit(metric)
    if unit == "ns per iteration":
        name, scale = series.time_scale(values)
        return f"{name} per iteration", scale
    if series.metric_kind(metric) == "rate":
        prefix, scale = series.si_scale(values)
        return f"{prefix} {unit}" if prefix else unit, scale
    return unit, 1.0


_COMPACT = FuncFormatter(lambda v, _: f"{v:.4g}")


def _compact_linear(ax: Any, which: str) -> None:
    """Short tick labels ('2e-05', '1.5') on a linear axis; no offset text."""
    target = ax.xaxis if which == "x" else ax.yaxis
    if target.get_scale() == "linear":
        target.set_major_formatter(_COMPACT)


def _bytes_ticks(ax: Any) -> None:
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: series.format_bytes(v)))


def _draw_cache_markers(ax: Any, markers: list[tuple[float, str]],
                        lo: float, hi: float, labelled: bool) -> None:
    trans = mtransforms.blended_transform_factory(ax.transData, ax.transAxes)
    for size, text in markers:
        if not lo / 2 <= size <= hi * 2:
            continue
        ax.axvline(size, color="0.45", linestyle="--", linewidth=0.9, zorder=1)
        if labelled:
            ax.text(size, 0.98, text, transform=trans, rotation=90, va="top",
                    ha="right", fontsize=7, color="0.3", zorder=4,
                    bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none",
                          "pad": 0.8})


def sweep_figure(path: str, title: str,
                   lines: dict[str, list[series.Instance]],
                   axis: series.XAxis, metrics: list[str],
                   context: dict[str, Any],
                   dashed: frozenset[str] = frozenset()) -> None:
    """One panel per metric: mean against axis, one line per entry of lines
    (series.line_groups), the keys in `dashed` drawn dashed (a contender's
    lines beside the baseline's).

    Error bars are one standard deviation over repetitions. Dashed vertical
    lines mark cache sizes where the axis is a size in bytes.
    """
    xs_all = sorted({axis.value(i) for group in lines.values() for i in group})
    log_x = series.spans_decades(xs_all)
    markers = series.cache_markers(context) if axis.is_bytes else []
    legend_cols, legend_rows = _legend_shape(len(lines))
    fig, axes = _grid_figure(_sweep_grid(len(metrics), axis, legend_rows), title)
    ns_log = _time_panels_log(lines, metrics)
    handles, labels = [], []
    for ax, metric in zip(axes, metrics):
        values = [i.stats[metric].mean for g in lines.values() for i in g
                  if metric in i.stats]
        unit, scale = _scaled(metric, values)
        for key, h in _draw_lines(ax, lines, axis, metric, scale, dashed):
            if key not in labels:
                handles.append(h)
                labels.append(key)
        _sweep_x_axis(ax, axis, xs_all, log_x)
        time_panel = series.metric_unit(metric) == "ns per iteration"
        _sweep_y_axis(ax, values, ns_log if time_panel else series.spans_decades(values, 20.0))
        _draw_cache_markers(ax, markers, xs_all[0], xs_all[-1], labelled=True)
        ax.set_title(metric)
        named_bytes = axis.is_bytes and "bytes" not in axis.name.lower()
        ax.set_xlabel(f"{axis.name} (bytes)" if named_bytes else axis.name)
        ax.set_ylabel(unit)
    # One x range for every panel (a metric only some lines have would
    # otherwise get its own range and ticks).
    lows, highs = zip(*(ax.get_xlim() for ax in axes))
    for ax in axes:
        ax.set_xlim(min(lows), max(highs))
    if legend_rows:
        fig.legend(handles, labels, loc="lower center", ncol=legend_cols,
                   bbox_to_anchor=(0.5, 0.0), frameon=False, title="benchmark")
    _save(fig, path)


def _legend_shape(entries: int) -> tuple[int, int]:
    """(columns, rows) of a sweep figure's legend; no rows for one line."""
    cols = min(4, entries)
    rows = math.ceil(entries / cols) if entries > 1 else 0
    return cols, rows


def _sweep_grid(panels: int, axis: series.XAxis, legend_rows: int) -> _Grid:
    """The layout of a sweep figure: its panels, then the legend below."""
    legend_in = 0.22 * legend_rows + (0.25 if legend_rows else 0)
    # Four columns past nine panels keep a hardware run's ten or so metrics
    # within three rows (about 900 px: one laptop screen).
    cols = min(panels, 3 if panels <= 9 else 4)
    left = wspace = 0.9   # y tick labels ('1.5e+04') and the unit
    # Rotated KiB/MiB ticks need more room under a panel.
    below = 0.75 if axis.is_bytes else 0.5
    return _Grid(panels, cols, _columns_width(cols, left, wspace), 2.1,
                 left, wspace, below + 0.35, bottom=below + legend_in)


def _time_panels_log(lines: dict[str, list[series.Instance]], metrics: list[str]) -> bool:
    """Whether the time panels (real_time, cpu_time, task-clock) get a log y
    axis: one choice for all, so a reader comparing them compares like with
    like."""
    ns_values = [i.stats[m].mean for m in metrics
                 if series.metric_unit(m) == "ns per iteration"
                 for g in lines.values() for i in g if m in i.stats]
    return series.spans_decades(ns_values, 20.0)


def _draw_lines(ax: Any, lines: dict[str, list[series.Instance]], axis: series.XAxis,
                metric: str, scale: float, dashed: frozenset[str]) -> list[tuple[str, Any]]:
    """Draws metric's mean (divided by scale) against axis, ±1 stddev, a
    line per entry of lines that has it; returns (key, artist) of each."""
    drawn = []
    for key, group in lines.items():
        pts = sorted((axis.value(i), i.stats[metric]) for i in group
                     if metric in i.stats)
        if not pts:
            continue
        x = [p[0] for p in pts]
        y = np.array([p[1].mean for p in pts]) / scale
        err = np.array([p[1].stddev for p in pts]) / scale
        h = ax.errorbar(x, y, yerr=err if err.any() else None, marker="o",
                        markersize=3.5, linewidth=1.3, capsize=2, label=key,
                        zorder=3, linestyle="--" if key in dashed else "-")
        drawn.append((key, h))
    return drawn


def _sweep_x_axis(ax: Any, axis: series.XAxis, xs_all: list[float], log_x: bool) -> None:
    """The x scale and ticks of a sweep panel; xs_all: every line's x."""
    if log_x:
        ax.set_xscale("log", base=2 if axis.is_bytes else 10)
        if axis.is_bytes:
            ax.xaxis.set_major_locator(LogLocator(base=4))
        # No minor ticks on x: unlabelled, and 8 a decade cost more to
        # draw than the data.
        ax.xaxis.set_minor_locator(NullLocator())
    if axis.is_bytes:
        _bytes_ticks(ax)
        ax.tick_params(axis="x", labelrotation=30)
    elif axis.position < 0 or len(xs_all) <= 4:
        ax.set_xticks(xs_all)  # threads, or a few values: label each one
        ax.xaxis.set_major_formatter(FuncFormatter(
            lambda v, _: f"{v:.0f}" if v == int(v) else f"{v:g}"))


def _sweep_y_axis(ax: Any, values: list[float], log_y: bool) -> None:
    """The y scale and ticks of a sweep panel of these values."""
    if log_y:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(_COMPACT)
        if not series.spans_decades(values, 1000.0):
            # Label 2x and 5x between powers of ten: a range of one or
            # two decades otherwise shows a single "10^1" to read values
            # by (over more decades the labels would overlap).
            ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
            ax.yaxis.set_minor_formatter(_COMPACT)
        else:
            ax.yaxis.set_minor_locator(NullLocator())
    _compact_linear(ax, "y")


def _row_label(inst: series.Instance) -> str:
    """The benchmark's full name (a section's rows come from several
    families), its label appended, cut to _MAX_LABEL_CHARS."""
    return _cut(f"{inst.key} [{inst.label}]" if inst.label else inst.key)


def _row_grid(panels: int, rows: int, labels: list[str]) -> _Grid:
    """The layout of a figure with a row per benchmark: up to three panels
    a row, row labels on the first column only."""
    cols = min(3, panels)
    left, wspace = min(_label_width(labels), 4.5), 0.35
    return _Grid(panels, cols, _columns_width(cols, left, wspace),
                 _ROW_IN * rows + _PANEL_PAD_IN, left, wspace, 0.85, bottom=0.55)


def bars_figure(path: str, title: str, members: list[series.Instance],
                metrics: list[str]) -> None:
    """One horizontal bar panel per metric; bars are benchmarks, ±1 stddev.
    Each panel is one metric in one unit; a panel whose values span 1000x
    or more is drawn on a log axis."""
    measured = [m for m in members if m.stats]
    names = [_row_label(m) for m in measured]
    grid = _row_grid(len(metrics), len(measured), names)
    fig, axes = _grid_figure(grid, title)
    y = np.arange(len(measured))
    for n, (ax, metric) in enumerate(zip(axes, metrics)):
        means = np.array([m.stats[metric].mean if metric in m.stats else np.nan
                          for m in measured])
        errs = np.array([m.stats[metric].stddev if metric in m.stats else 0.0
                         for m in measured])
        unit, scale = _scaled(metric, [v for v in means if not np.isnan(v)])
        color = _DERIVED_COLOR if series.metric_kind(metric) == "derived" else _COUNTER_COLOR
        finite = means[~np.isnan(means)] / scale
        log = series.spans_decades(list(finite), 1000.0)
        # On a log axis a bar starts at the smallest value's decade.
        base = 10.0 ** math.floor(math.log10(finite.min())) if log else 0.0
        ax.barh(y, means / scale - base, left=base,
                xerr=errs / scale if errs.any() else None,
                color=color, capsize=2, height=0.7, zorder=2)
        ax.set_yticks(y)
        ax.set_yticklabels(names if n % grid.cols == 0 else [])
        ax.set_ylim(len(measured) - 0.5, -0.5)
        ax.set_title(metric)
        ax.set_xlabel(unit)
        ax.grid(axis="y", visible=False)
        if log:
            ax.set_xscale("log")
            ax.set_xlim(base, finite.max() * 30)  # room for the value labels
        elif not np.any(finite):
            ax.set_xlim(0, 1)  # all zero: an empty panel reads as "0"
        _compact_linear(ax, "x")
        if len(measured) <= 24:
            for yi, v, e in zip(y, means / scale, errs / scale):
                if not np.isnan(v):  # the value, right of its error bar
                    ax.text(v + e, yi, f" {series.format_value(v)}", va="center",
                            fontsize=7, color="0.2", clip_on=True)
        if not log:
            ax.margins(x=0.25)
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
            if finite.size and finite.min() >= 0:
                ax.set_xlim(left=0)
    _save(fig, path)


def spread_figure(path: str, title: str, members: list[series.Instance],
                  metrics: list[str]) -> None:
    """Repetitions as deviation from each benchmark's median (box + points)."""
    measured = [m for m in members if m.stats]
    names = [_row_label(m) for m in measured]
    grid = _row_grid(len(metrics), len(measured), names)
    fig, axes = _grid_figure(grid, title)
    rng = np.random.default_rng(0)  # fixed jitter: same input, same picture
    for n, (ax, metric) in enumerate(zip(axes, metrics)):
        data = []
        for inst in measured:
            stat = inst.stats.get(metric)
            if stat is None or not stat.values or stat.median == 0:
                data.append([])
                continue
            med = stat.median
            data.append([(v / med - 1.0) * 100.0 for v in stat.values])
        positions = np.arange(len(measured))
        boxed = [(p, d) for p, d in zip(positions, data) if d]
        if boxed:
            ax.boxplot([d for _, d in boxed], positions=[p for p, _ in boxed],
                       vert=False, widths=0.6, showfliers=False,
                       medianprops={"color": "#c44e52"})
            # One scatter for the panel: an artist per benchmark makes
            # matplotlib's autoscaling quadratic in the benchmarks.
            xs = np.concatenate([np.asarray(d, dtype=float) for _, d in boxed])
            ys = np.concatenate([p + rng.uniform(-0.18, 0.18, len(d)) for p, d in boxed])
            ax.scatter(xs, ys, s=9, color="#4c72b0", alpha=0.8, zorder=3)
        ax.axvline(0, color="0.4", linewidth=0.8)
        ax.set_yticks(positions)
        ax.set_yticklabels(names if n % grid.cols == 0 else [])
        ax.set_ylim(len(measured) - 0.5, -0.5)
        ax.set_title(metric)
        ax.set_xlabel("deviation from median (%)")
    _save(fig, path)


_VERDICT_COLORS = {pm_comparison.REGRESSION: "#c62828",
                   pm_comparison.IMPROVEMENT: "#2a9d3a"}


def comparison_figure(path: str, title: str, metric: str,
                      contenders: list[tuple[str, list[series.Change]]],
                      higher_is_better: bool) -> None:
    """Change vs baseline per benchmark, one marker per contender file.

    Red: scripts/compare.py judged the row a regression; green: an
    improvement; grey: anything else (no significant change, not gated).
    """
    keys: list[str] = []
    for _, chs in contenders:
        for c in chs:
            if c.key not in keys:
                keys.append(c.key)
    index = {k: i for i, k in enumerate(keys)}
    labels = [_cut(k) for k in keys]
    legend_w = 0.5 + _CHAR_IN * max([len("contender")] + [len(lb) for lb, _ in contenders])
    left = min(_label_width(labels), 4.5)
    plot_h = max(1.2, 0.24 * len(keys) * max(1, len(contenders)) ** 0.5 + 0.3)
    grid = _Grid(1, 1, max(3.0, WIDTH_IN - left - legend_w - 0.2), plot_h, left,
                 0.0, 0.0, top=0.35, bottom=0.6, right=legend_w + 0.2)
    fig = Figure(figsize=(grid.width, grid.height), dpi=DPI)
    ax = fig.add_axes((grid.left / grid.width, grid.bottom / grid.height,
                       grid.panel_w / grid.width, grid.panel_h / grid.height))
    step = 0.7 / max(1, len(contenders))
    for n, (label, chs) in enumerate(contenders):
        offset = (n - (len(contenders) - 1) / 2) * step
        marker = _MARKERS[n % len(_MARKERS)]
        by_color: dict[str, list[series.Change]] = {}
        for c in chs:
            by_color.setdefault(_VERDICT_COLORS.get(c.verdict, "0.45"), []).append(c)
        # One line and one marker artist per colour: an artist per benchmark
        # makes autoscaling quadratic in the benchmarks.
        for color, group in by_color.items():
            ys = [index[c.key] + offset for c in group]
            # The interval is drawn from its own ends: the change of the
            # medians may lie outside the Hodges-Lehmann interval (3 vs 3
            # repetitions), which errorbar's +/- lengths cannot express.
            seg_x, seg_y = [], []
            for c, yv in zip(group, ys):
                if c.low is not None:
                    seg_x += [c.low, c.high, np.nan]
                    seg_y += [yv, yv, np.nan]
            if seg_x:
                ax.plot(seg_x, seg_y, color=color, linewidth=1.2, marker="|",
                        markersize=6)
            ax.plot([c.percent for c in group], ys, marker=marker, color=color,
                    linestyle="none", markersize=5)
        ax.plot([], [], marker=marker, color="0.3", linestyle="none", label=label)
    ax.axvline(0, color="0.2", linewidth=0.9)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(keys) - 0.5, -0.5)
    better = "higher" if higher_is_better else "lower"
    ax.set_xlabel(f"change of median vs baseline (%), {better} is better; "
                  "bars: confidence interval")
    ax.set_title(title)
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              title="contender")
    _save(fig, path)


def profile_figure(path: str, title: str, labels: list[str], shares: list[float],
                   xlabel: str) -> None:
    """A profiled case's top functions as horizontal bars of their share
    (%), the first on top."""
    labels, shares = labels[::-1], shares[::-1]
    # The bars get 5 inches whatever the labels' length (about 0.07 inch a
    # character at the default tick font).
    left = 0.3 + 0.07 * max((len(label) for label in labels), default=0)
    grid = _Grid(1, 1, 5.0, 0.4 * len(labels) + 0.2, left, 0.0, 0.0,
                 top=0.35, bottom=0.55, right=0.3)
    fig = Figure(figsize=(grid.width, grid.height), dpi=DPI)
    ax = fig.add_axes((grid.left / grid.width, grid.bottom / grid.height,
                       grid.panel_w / grid.width, grid.panel_h / grid.height))
    ax.barh(range(len(labels)), shares)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(xlabel)
    ax.set_xlim(0, 100)
    ax.set_title(title)
    _save(fig, path)


def draw_figures(figures: list) -> None:
    """Draws every planned figure (a model.Figure with a drawing) into its
    PNG: <kind>_figure(path, title, *args), looked up when called."""
    for figure in figures:
        d = figure.drawing
        if d is not None:
            globals()[f"{d.kind}_figure"](d.path, d.title, *d.args)
