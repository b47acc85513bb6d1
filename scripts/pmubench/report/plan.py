"""Plans a file's figures: which ones a section of its runs gets (a sweep
figure per family that sweeps an argument, bars of the families that sweep
nothing, the spread of the repetitions), their PNG names, titles, captions
and what each shows (a model.Drawing for draw.py), and the value table.
No matplotlib here: draw.py draws what this plans.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from pmubench.report import series, sizes
from pmubench.report.model import (
    MAX_LINES, Drawing, Figure, GroupSection, PngNames, Table, part_note, parts,
    slug)


def constant_metrics(members: list[series.Instance],
                      metrics: list[str]) -> dict[str, float]:
    """Metrics no panel is drawn for: one value across every benchmark of a
    family of 2 or more, or 0 in a family of one. A flat line or a row of
    equal bars says nothing the value table does not."""
    result = {}
    for metric in metrics:
        means = {m.stats[metric].mean for m in members if metric in m.stats}
        if len(means) == 1 and (len(members) > 1 or 0.0 in means):
            result[metric] = means.pop()
    return result


def constant_note(constant: dict[str, float]) -> str:
    """The one line a section says about the panels it left out."""
    if not constant:
        return ""
    return ("Not drawn, the same for every benchmark (see the table): " +
            ", ".join(f"{m} = {series.format_value(v)}" for m, v in constant.items()))


def _repetitions(members: list[series.Instance]) -> int:
    return max((s.n for m in members for s in m.stats.values()), default=0)


def value_table(members: list[series.Instance], metrics: list[str]) -> Table:
    """Mean ± stddev per benchmark and metric (times in ns), failures shown."""
    headers = ["benchmark", "reps"] + [f"{m} ({series.metric_unit(m)})" for m in metrics]
    rows = []
    for inst in members:
        name = inst.key + (f" [{inst.label}]" if inst.label else "")
        if not inst.stats:
            rows.append([name, "0", f"failed: {inst.error}"] + [""] * (len(metrics) - 1))
            continue
        cells = [name, str(_repetitions([inst]))]
        for metric in metrics:
            stat = inst.stats.get(metric)
            if stat is None:
                cells.append("")
            elif stat.n > 1:
                cells.append(f"{series.format_value(stat.mean)} ± {series.format_value(stat.stddev)}")
            else:
                cells.append(series.format_value(stat.mean))
        rows.append(cells)
    return Table(headers, rows)


@dataclass
class _Plan:
    """What one set of figures is drawn from: a family (scaling) or a
    section's benchmarks (bars, spread)."""
    outdir: str
    names: PngNames
    file_slug: str
    stem: str                        # the PNG name's middle: family or section
    name: str                        # for captions: 'BM_Chase', 'branch_prediction'
    where: str                       # 'BM_Chase (run.json)' for figure titles
    measured: list[series.Instance]  # benchmarks with at least one result
    metrics: list[str]
    reps: int
    constant: dict[str, float]       # metrics not drawn (constant_metrics)

    def path(self, kind: str) -> tuple[str, str]:
        name = self.names.take(self.file_slug, self.stem, kind)
        return name, os.path.join(self.outdir, name)

    @property
    def drawn(self) -> list[str]:
        return [m for m in self.metrics if m not in self.constant]


def _plan(outdir: str, names: PngNames, file_slug: str, file_label: str,
          stem: str, name: str, measured: list[series.Instance]) -> _Plan:
    metrics = series.ordered_metrics(measured)
    return _Plan(outdir, names, file_slug, stem, name, f"{name} ({file_label})",
                 measured, metrics, _repetitions(measured),
                 constant_metrics(measured, metrics))


def _with_constant(caption: str, constant: dict[str, float]) -> str:
    note = constant_note(constant)
    return f"{caption} {note}." if note else caption


def _sweep(plan: _Plan, axis: series.XAxis, context: dict[str, Any]) -> list[Figure]:
    """A family's sweep figure(s) against its swept argument, a panel per
    metric that varies across its benchmarks (PNG: <family>.scaling.png)."""
    drawn = plan.drawn
    if not drawn:
        return []
    figures = []
    lines = series.line_groups(plan.measured, axis)
    line_parts = parts(list(lines), MAX_LINES)
    for index, keys in enumerate(line_parts):
        part = part_note(index, len(line_parts), MAX_LINES, len(lines), "lines")
        name, path = plan.path("scaling" if len(line_parts) == 1 else f"scaling.{index + 1}")
        drawing = Drawing("sweep", path, f"{plan.where}: metrics vs {axis.name}{part}",
                          ({k: lines[k] for k in keys}, axis, drawn, context))
        figures.append(Figure(name, f"{plan.name}: scaling with {axis.name}{part}",
                              _with_constant(_sweep_caption(plan, context, axis),
                                             plan.constant), drawing))
    return figures


def _sweep_caption(plan: _Plan, context: dict[str, Any],
                   axis: series.XAxis) -> str:
    """What a sweep figure shows, for its caption."""
    notes = [f"Mean per iteration of each metric against {axis.name}, "
             "one line per benchmark"]
    notes.append(f"error bars ±1 stddev over {plan.reps} repetitions"
                 if plan.reps > 1 else "one repetition (no error bars)")
    if axis.is_bytes and series.cache_markers(context):
        notes.append("dashed lines: cache sizes from the run's context")
    return "; ".join(notes) + "."


def _bars(plan: _Plan, families: list[str]) -> list[Figure]:
    """One bar chart (in parts of at most sizes.bar_rows(panels) rows) of
    the benchmarks of the families that sweep nothing: a panel per metric
    that varies across them, a bar per benchmark."""
    drawn = plan.drawn
    fully = series.fully_counted(plan.measured)
    if fully and "pmu_running_fraction" in drawn:
        drawn.remove("pmu_running_fraction")  # 1.0 everywhere: in the caption
    if not drawn:
        return []
    caption = ("Mean per iteration of each metric, a bar per benchmark of the "
               f"families that sweep no argument ({_names(families)}), "
               "±1 stddev; a panel per metric, so bars that share an axis "
               "share a metric and its unit (a log axis where a panel spans "
               "1000x)")
    if fully and "pmu_running_fraction" in plan.metrics:
        caption += ("; counters were on the PMU for the whole batch "
                    "(pmu_running_fraction = 1)")
    return _row_figures(plan, "bars", "benchmarks without a sweep",
                        _with_constant(caption + ".", plan.constant),
                        sizes.bar_rows(len(drawn)), drawn)


def _names(items: list[str], most: int = 6) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _row_figures(plan: _Plan, kind: str, what: str, caption: str,
                 rows: int, metrics: list[str]) -> list[Figure]:
    """Figures with a row per benchmark, `rows` benchmarks each, a panel
    per metric: draw.<kind>_figure(path, title, members, metrics)."""
    chunks = parts(plan.measured, rows)
    figures = []
    for index, members in enumerate(chunks):
        part = part_note(index, len(chunks), rows, len(plan.measured), "benchmarks")
        name, path = plan.path(kind if len(chunks) == 1 else f"{kind}.{index + 1}")
        drawing = Drawing(kind, path, f"{plan.where}: {what}{part}", (members, metrics))
        figures.append(Figure(name, f"{plan.name}: {what}{part}", caption, drawing))
    return figures


def _spread(plan: _Plan) -> list[Figure]:
    """Time and every counter whose relative spread is defined (median > 0),
    for every benchmark of the section."""
    if plan.reps < 2:
        return []
    drawn = [m for m in plan.metrics if series.metric_kind(m) == "time"]
    skipped, exact = [], []
    for m in plan.metrics:
        if series.metric_kind(m) != "counter":
            continue
        stats = [i.stats[m] for i in plan.measured if m in i.stats]
        if all(len(set(st.values)) <= 1 for st in stats):
            exact.append(m)   # every repetition alike: nothing to spread
        elif min(st.median for st in stats) > 0:
            drawn.append(m)
        else:
            skipped.append(m)
    if not any(i.stats[m].values for i in plan.measured for m in drawn
               if m in i.stats):
        return []  # aggregates only: no repetitions to show
    caption = ("Every repetition as % deviation from its benchmark's median; "
               "box: quartiles, dots: repetitions")
    if skipped:
        caption += "; left out (a zero median): " + ", ".join(skipped)
    if exact:
        caption += "; the same in every repetition: " + ", ".join(exact)
    return _row_figures(plan, "spread", f"spread over {plan.reps} repetitions",
                        caption + ".", sizes.spread_rows(len(drawn)), drawn)


def section(outdir: str, names: PngNames, file_slug: str, file_label: str,
            section: series.Section, context: dict[str, Any],
            paired: tuple[str, set[str]] = ("", set())) -> GroupSection:
    """A section's figures: each sweeping family's sweep figures, one bar
    chart of the families that sweep nothing, one spread figure of all.
    paired: (the baseline's label, the families drawn in the comparison
    section with the baseline's lines), left out here."""
    figures: list[Figure] = []
    notes: list[str] = []
    points: list[series.Instance] = []
    flat: list[str] = []
    elsewhere: list[str] = []
    stem = slug(section.source) if section.source else "no-source-file"
    for family, members in section.families.items():
        measured = [m for m in members if m.stats]
        if not measured:
            continue
        axis = series.choose_x_axis(measured)
        if axis is None:
            points += measured
            flat.append(family)
            continue
        if family in paired[1]:
            elsewhere.append(family)
            continue
        plan = _plan(outdir, names, file_slug, file_label, family, family, measured)
        drawn = _sweep(plan, axis, context)
        if not drawn:
            notes.append(f"{family}: no scaling figure, every metric is the same "
                         f"for each benchmark: {constant_note(plan.constant)}")
        figures += drawn
    if elsewhere:
        notes.append(f"Scaling of {_names(elsewhere)}: in the comparison section, "
                     f"drawn dashed beside {paired[0]}'s lines (solid).")
    if points:
        plan = _plan(outdir, names, file_slug, file_label, stem, section.name, points)
        drawn = _bars(plan, flat)
        if not drawn:
            notes.append(f"{_names(flat)}: no bar chart, {constant_note(plan.constant)}")
        figures += drawn
    measured = [m for m in section.members if m.stats]
    if measured:
        figures += _spread(_plan(outdir, names, file_slug, file_label, stem,
                                 section.name, measured))
    metrics = series.ordered_metrics(measured)
    return GroupSection(section.title, figures, value_table(section.members, metrics),
                        notes, stem)


