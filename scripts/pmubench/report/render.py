"""Draws the report's PNGs with matplotlib's Agg backend.

The only module that imports matplotlib. Each function takes data already
prepared by series.py and writes one PNG; none decides what to plot. Sizes
are for a laptop screen: 11 inches wide at 100 dpi (1100 px), legends below
the panels so they never cover data.
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.transforms as mtransforms  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from pmubench.compare import comparison as pm_comparison  # noqa: E402
from pmubench.report import series  # noqa: E402

WIDTH_IN = 11.0
DPI = 100
_COUNTER_COLOR = "#4c72b0"
_DERIVED_COLOR = "#8172b2"
_MARKERS = ("o", "s", "^", "D", "v", "P")

plt.rcParams.update({
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
    "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": DPI,
})


def _save(fig: Any, path: str) -> None:
    fig.savefig(path, dpi=DPI, format="png")
    plt.close(fig)


def _grid(count: int, max_cols: int, row_height: float, extra: float = 0.0):
    cols = min(max_cols, count)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTH_IN, row_height * rows + extra),
                             squeeze=False)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


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


def scaling_figure(path: str, title: str,
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

    legend_cols = min(4, len(lines))
    legend_rows = math.ceil(len(lines) / legend_cols) if len(lines) > 1 else 0
    legend_in = 0.22 * legend_rows + (0.25 if legend_rows else 0)
    # Four columns past nine panels keep a hardware run's ten or so metrics
    # within three rows (about 900 px: one laptop screen).
    cols = 3 if len(metrics) <= 9 else 4
    fig, axes = _grid(len(metrics), cols, 2.9, extra=0.5 + legend_in)
    # Time panels (real_time, cpu_time, task-clock) share one y scale choice,
    # so a reader comparing them compares like with like.
    ns_values = [i.stats[m].mean for m in metrics
                 if series.metric_unit(m) == "ns per iteration"
                 for g in lines.values() for i in g if m in i.stats]
    ns_log = series.spans_decades(ns_values, 20.0)
    handles, labels = [], []
    for ax, metric in zip(axes, metrics):
        values = [i.stats[metric].mean for g in lines.values() for i in g
                  if metric in i.stats]
        unit, scale = _scaled(metric, values)
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
            if key not in labels:
                handles.append(h)
                labels.append(key)
        if log_x:
            ax.set_xscale("log", base=2 if axis.is_bytes else 10)
            if axis.is_bytes:
                ax.xaxis.set_major_locator(LogLocator(base=4))
        if axis.is_bytes:
            _bytes_ticks(ax)
            ax.tick_params(axis="x", labelrotation=30)
        elif axis.position < 0 or len(xs_all) <= 4:
            ax.set_xticks(xs_all)  # threads, or a few values: label each one
            ax.xaxis.set_major_formatter(FuncFormatter(
                lambda v, _: f"{v:.0f}" if v == int(v) else f"{v:g}"))
        if (ns_log if series.metric_unit(metric) == "ns per iteration"
                else series.spans_decades(values, 20.0)):
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(_COMPACT)
            if not series.spans_decades(values, 1000.0):
                # Label 2x and 5x between powers of ten: a range of one or
                # two decades otherwise shows a single "10^1" to read values
                # by (over more decades the labels would overlap).
                ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
                ax.yaxis.set_minor_formatter(_COMPACT)
        _compact_linear(ax, "y")
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
    fig.suptitle(title, fontsize=11)
    bottom = legend_in / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 1, 0.97))
    if legend_rows:
        fig.legend(handles, labels, loc="lower center", ncol=legend_cols,
                   bbox_to_anchor=(0.5, 0.0), frameon=False, title="benchmark")
    _save(fig, path)


def _instance_label(inst: series.Instance) -> str:
    """The name without the family (a figure shows one family)."""
    name = inst.short_name
    return f"{name} [{inst.label}]" if inst.label else name


def bars_figure(path: str, title: str, members: list[series.Instance],
                metrics: list[str], derived: bool = False) -> None:
    """One horizontal bar panel per metric; bars are benchmarks, ±1 stddev."""
    measured = [m for m in members if m.stats]
    names = [_instance_label(m) for m in measured]
    row_h = max(2.2, 0.26 * len(measured) + 1.1)
    fig, axes = _grid(len(metrics), 3, row_h, extra=0.4)
    y = np.arange(len(measured))
    color = _DERIVED_COLOR if derived else _COUNTER_COLOR
    for n, (ax, metric) in enumerate(zip(axes, metrics)):
        means = np.array([m.stats[metric].mean if metric in m.stats else np.nan
                          for m in measured])
        errs = np.array([m.stats[metric].stddev if metric in m.stats else 0.0
                         for m in measured])
        unit, scale = _scaled(metric, [v for v in means if not np.isnan(v)])
        ax.barh(y, means / scale, xerr=errs / scale if errs.any() else None,
                color=color, capsize=2, height=0.7, zorder=2)
        ax.set_yticks(y)
        ax.set_yticklabels(names if n % 3 == 0 else [])
        ax.invert_yaxis()
        ax.set_title(metric)
        ax.set_xlabel(unit)
        ax.grid(axis="y", visible=False)
        finite = means[~np.isnan(means)] / scale
        if series.spans_decades(list(finite), 1000.0):
            ax.set_xscale("log")
        elif not np.any(finite):
            ax.set_xlim(0, 1)  # all zero: an empty panel reads as "0"
        _compact_linear(ax, "x")
        if len(measured) <= 24:
            for yi, v, e in zip(y, means / scale, errs / scale):
                if not np.isnan(v):  # the value, right of its error bar
                    ax.text(v + e, yi, f" {series.format_value(v)}", va="center",
                            fontsize=7, color="0.2", clip_on=True)
        ax.margins(x=0.18)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    _save(fig, path)


def spread_figure(path: str, title: str, members: list[series.Instance],
                  metrics: list[str]) -> None:
    """Repetitions as deviation from each benchmark's median (box + points)."""
    measured = [m for m in members if m.stats]
    names = [_instance_label(m) for m in measured]
    row_h = max(2.2, 0.26 * len(measured) + 1.1)
    fig, axes = _grid(len(metrics), 3, row_h, extra=0.4)
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
        ax.set_yticklabels(names if n % 3 == 0 else [])
        ax.set_ylim(len(measured) - 0.5, -0.5)
        ax.set_title(metric)
        ax.set_xlabel("deviation from median (%)")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
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
    fig_h = max(2.6, 0.24 * len(keys) * max(1, len(contenders)) ** 0.5 + 1.6)
    fig, ax = plt.subplots(figsize=(WIDTH_IN * 0.8, fig_h))
    step = 0.7 / max(1, len(contenders))
    for n, (label, chs) in enumerate(contenders):
        offset = (n - (len(contenders) - 1) / 2) * step
        for c in chs:
            yv = index[c.key] + offset
            color = _VERDICT_COLORS.get(c.verdict, "0.45")
            if c.low is not None:
                # The interval is drawn from its own ends: the change of the
                # medians may lie outside the Hodges-Lehmann interval (3 vs 3
                # repetitions), which errorbar's +/- lengths cannot express.
                ax.plot([c.low, c.high], [yv, yv], color=color, linewidth=1.2,
                        marker="|", markersize=6)
            ax.plot(c.percent, yv, marker=_MARKERS[n % len(_MARKERS)], color=color,
                    linestyle="none", markersize=5)
        ax.plot([], [], marker=_MARKERS[n % len(_MARKERS)], color="0.3",
                linestyle="none", label=label)
    ax.axvline(0, color="0.2", linewidth=0.9)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(keys)
    ax.set_ylim(len(keys) - 0.5, -0.5)
    better = "higher" if higher_is_better else "lower"
    ax.set_xlabel(f"change of median vs baseline (%), {better} is better; "
                  "bars: confidence interval")
    ax.set_title(title)
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              title="contender")
    fig.tight_layout()
    _save(fig, path)
