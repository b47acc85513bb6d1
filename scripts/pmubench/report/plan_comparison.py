"""Plans the comparison section of a report of several files: a figure per
metric of each contender's change against the baseline (coloured by
compare's verdict), one sweep figure per family both files sweep alike, and
compare's verdicts as a table. No matplotlib here: draw.py draws it.
"""

from __future__ import annotations

import os
from typing import Any

from pmubench.render import formatting as compare_fmt
from pmubench.report import series
from pmubench.report.model import (
    MAX_LINES, MAX_ROWS, Drawing, Figure, PngNames, Table, part_note, parts)
from pmubench.report.plan import constant_metrics
from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.verdicts import stats as compare_stats


def comparisons(outdir: str, names: PngNames, labels: list[str],
                judged: list[comparison.Comparison]) -> list[Figure]:
    """A figure per metric: every contender's change against the baseline,
    coloured by scripts/compare.py's verdict of that row."""
    figures = []
    metrics = list(dict.fromkeys(m for c in judged for m in c.metrics))
    for metric in metrics:
        contenders = []
        for label, c in zip(labels[1:], judged):
            chs = series.changes(c, metric)
            if chs:
                contenders.append((label, chs))
        if not contenders:
            continue
        higher = benchjson.is_higher_better(metric)
        keys = list(dict.fromkeys(c.key for _, chs in contenders for c in chs))
        chunks = parts(keys, MAX_ROWS)
        for index, chunk in enumerate(chunks):
            part = part_note(index, len(chunks), MAX_ROWS, len(keys), "benchmarks")
            wanted = set(chunk)
            name = names.take("compare", metric, *([str(index + 1)] if len(chunks) > 1 else []))
            drawing = Drawing(
                "comparison", os.path.join(outdir, name),
                f"{metric}: change vs {labels[0]}{part}",
                (metric, [(label, [c for c in chs if c.key in wanted])
                          for label, chs in contenders], higher))
            figures.append(_comparison_figure(name, metric, labels[0], part,
                                              judged[0].alpha, higher, drawing))
    return figures


def paired_families(base: list[series.Instance], head: list[series.Instance]
                    ) -> dict[str, tuple[series.XAxis, list[series.Instance],
                                         list[series.Instance]]]:
    """Families that sweep the same argument in both files: family ->
    (axis, the baseline's measured benchmarks, the contender's). Each gets
    one sweep figure with both files' lines in the comparison section,
    instead of one of its own in the contender's section."""
    result = {}
    head_families = series.group_families(head)
    for family, base_members in series.group_families(base).items():
        base_measured = [m for m in base_members if m.stats]
        head_measured = [m for m in head_families.get(family, []) if m.stats]
        axis = series.choose_x_axis(base_measured)
        if axis is not None and head_measured and series.choose_x_axis(head_measured) == axis:
            result[family] = (axis, base_measured, head_measured)
    return result


def paired_sweeps(outdir: str, names: PngNames, labels: tuple[str, str],
                  sides: tuple[list[series.Instance], list[series.Instance]],
                  context: dict[str, Any]) -> list[Figure]:
    """Per family that sweeps the same argument in both files: the baseline's
    lines (solid) and the contender's (dashed) on one sweep figure."""
    figures = []
    for family, (axis, base_measured, head_measured) in paired_families(*sides).items():
        both = base_measured + head_measured
        metrics = series.ordered_metrics(both)
        constant = constant_metrics(both, metrics)
        drawn = [m for m in metrics if m not in constant]
        if not drawn:
            continue
        lines: dict[str, list[series.Instance]] = {}
        dashed = set()
        for n, (label, members) in enumerate(zip(labels, (base_measured, head_measured))):
            for key, group in series.line_groups(members, axis).items():
                lines[f"{label}: {key}"] = group
                if n == 1:
                    dashed.add(f"{label}: {key}")
        keys = list(lines)
        chunks = parts(keys, MAX_LINES)
        for index, chunk in enumerate(chunks):
            part = part_note(index, len(chunks), MAX_LINES, len(keys), "lines")
            name = names.take("compare", labels[1], family, "scaling",
                              *([str(index + 1)] if len(chunks) > 1 else []))
            drawing = Drawing(
                "sweep", os.path.join(outdir, name),
                f"{family}: {labels[0]} (solid) vs {labels[1]} (dashed){part}",
                ({k: lines[k] for k in chunk}, axis, drawn, context, frozenset(dashed)))
            figures.append(Figure(
                name, f"{family}: scaling with {axis.name}, {labels[0]} vs {labels[1]}{part}",
                f"Mean per iteration against {axis.name}: {labels[0]} solid, "
                f"{labels[1]} dashed; error bars ±1 stddev over the repetitions.",
                drawing))
    return figures


def _comparison_figure(name: str, metric: str, baseline: str, part: str,
                       alpha: float, higher: bool, drawing: Drawing) -> Figure:
    return Figure(
        name, f"{metric}: change vs {baseline}{part}",
        f"Change of the median {metric} per benchmark against the baseline "
        f"{baseline} ({'higher' if higher else 'lower'} is better); bars: "
        f"{compare_stats.confidence_label(alpha)} distribution-free interval "
        "from the repetitions (where the sample is too small for that level, "
        "the widest it allows); red/green: scripts/compare.py's regression/"
        "improvement verdict with its thresholds, grey: no verdict.", drawing)


def _unit(row: comparison.Row) -> str:
    """A row's unit: compare.py's (times), else the event's (task-clock in
    ns, msr/tsc in TSC cycles)."""
    return row.unit or series.counter_unit(row.metric)


def verdict_table(c: comparison.Comparison) -> Table:
    """compare.py's regressions and improvements as a table, regressions
    first, and its result line as the last row."""
    changed = [r for r in c.rows
               if r.verdict in (comparison.REGRESSION, comparison.IMPROVEMENT)]
    changed.sort(key=lambda r: r.verdict != comparison.REGRESSION)
    headers = ["benchmark", "metric", "baseline", "contender", "change",
               f"{compare_stats.confidence_label(c.alpha)} CI", "verdict"]
    rows = [[r.benchmark, r.metric, compare_fmt.value(r.baseline.center, _unit(r)),
             compare_fmt.value(r.contender.center, _unit(r)),
             compare_fmt.change(r.change), compare_fmt.interval(r.interval, c.alpha),
             compare_fmt.verdict(r)] for r in changed]
    return Table(headers, rows)
