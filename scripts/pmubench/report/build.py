"""Decides which plots a set of runs gets, renders them, and describes them.

build_report() writes every PNG into a directory and returns a Report: the
titles, captions and value tables html_page.py lays out. The first file is
the baseline of the comparison plots when several files are given.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.render import formatting as compare_fmt
from pmubench.render import compare_text
from pmubench.verdicts import stats as compare_stats
from pmubench.report import render
from pmubench.report import series


@dataclass
class Figure:
    filename: str   # relative to the report directory
    title: str
    caption: str    # one line


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


@dataclass
class GroupSection:
    """A section: the families one source file registered (or those of no
    known file), their plots and one value table."""
    name: str       # 'branch_prediction (4 families)'
    figures: list[Figure]
    table: Table
    notes: list[str] = field(default_factory=list)  # what is not drawn, and why
    key: str = ""   # 'branch_prediction', 'no-source-file': its PNGs' and anchor's


@dataclass
class FileSection:
    label: str
    path: str
    context: dict[str, Any]
    sections: list[GroupSection]


@dataclass
class Verdicts:
    """scripts/compare.py's judgement of one contender against the baseline."""
    contender: str
    result: str           # its result line
    warnings: list[str]
    table: Table          # regressions and improvements


@dataclass
class Report:
    files: list[FileSection]
    comparisons: list[Figure] = field(default_factory=list)
    verdicts: list[Verdicts] = field(default_factory=list)
    profiles: list[Figure] = field(default_factory=list)  # top functions per case
    flames: list[Figure] = field(default_factory=list)  # SVG flame graphs

    def figures(self) -> list[Figure]:
        result = [f for fs in self.files for sec in fs.sections for f in sec.figures]
        return result + self.comparisons + self.profiles + self.flames


def slug(text: str) -> str:
    """A file-name-safe form: 'msr/tsc/' -> 'msr_tsc', 'BM_Chase' unchanged."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.") or "x"


def file_labels(paths: list[str]) -> list[str]:
    """Base names, made unique with a '#2' suffix where two files share one."""
    labels, seen = [], {}
    for path in paths:
        base = os.path.basename(path)
        seen[base] = seen.get(base, 0) + 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


# A figure with one row per benchmark (bars, spread, comparison) holds at
# most MAX_ROWS of them, a scaling figure at most MAX_LINES lines; more go to
# further figures of the same kind ("benchmarks 41-80 of 222"). Every figure
# then has a bounded size and cost, and the work grows linearly with the
# number of benchmarks (matplotlib's autoscaling is quadratic in the artists
# of one axes, and a 5,000-row figure is a 130,000-pixel-high image).
MAX_ROWS = 40
MAX_LINES = 12


def parts(items: list, size: int) -> list[list]:
    """items in consecutive slices of at most size (one empty part if none)."""
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def _part_note(index: int, count: int, size: int, total: int, what: str) -> str:
    """'' for a single part, else ' (benchmarks 41-80 of 222)'."""
    if count == 1:
        return ""
    first = index * size + 1
    return f" ({what} {first}-{min(total, first + size - 1)} of {total})"


class PngNames:
    """Hands out unique PNG names inside one report."""

    def __init__(self) -> None:
        self._used: set[str] = set()

    def take(self, *parts: str) -> str:
        stem = ".".join(slug(p) for p in parts)
        name, n = f"{stem}.png", 2
        while name in self._used:
            name, n = f"{stem}.{n}.png", n + 1
        self._used.add(name)
        return name


def _constant_metrics(members: list[series.Instance],
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
    constant: dict[str, float]       # metrics not drawn (_constant_metrics)

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
                 _constant_metrics(measured, metrics))


def _with_constant(caption: str, constant: dict[str, float]) -> str:
    note = constant_note(constant)
    return f"{caption} {note}." if note else caption


def _scaling(plan: _Plan, axis: series.XAxis, context: dict[str, Any]) -> list[Figure]:
    """A family's scaling figure(s) against its swept argument, a panel per
    metric that varies across its benchmarks."""
    drawn = plan.drawn
    if not drawn:
        return []
    figures = []
    lines = series.line_groups(plan.measured, axis)
    line_parts = parts(list(lines), MAX_LINES)
    for index, keys in enumerate(line_parts):
        part = _part_note(index, len(line_parts), MAX_LINES, len(lines), "lines")
        name, path = plan.path("scaling" if len(line_parts) == 1 else f"scaling.{index + 1}")
        render.scaling_figure(path, f"{plan.where}: metrics vs {axis.name}{part}",
                              {k: lines[k] for k in keys}, axis, drawn, context)
        figures.append(Figure(name, f"{plan.name}: scaling with {axis.name}{part}",
                              _with_constant(_scaling_caption(plan, context, axis),
                                             plan.constant)))
    return figures


def _scaling_caption(plan: _Plan, context: dict[str, Any],
                     axis: series.XAxis) -> str:
    """What a scaling figure shows, for its caption."""
    notes = [f"Mean per iteration of each metric against {axis.name}, "
             "one line per benchmark"]
    notes.append(f"error bars ±1 stddev over {plan.reps} repetitions"
                 if plan.reps > 1 else "one repetition (no error bars)")
    if axis.is_bytes and series.cache_markers(context):
        notes.append("dashed lines: cache sizes from the run's context")
    return "; ".join(notes) + "."


def _bars(plan: _Plan, families: list[str]) -> list[Figure]:
    """One bar chart (in parts of at most render.bar_rows(panels) rows) of
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
                        render.bar_rows(len(drawn)),
                        lambda path, title, members: render.bars_figure(
                            path, title, members, drawn))


def _names(items: list[str], most: int = 6) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _row_figures(plan: _Plan, kind: str, what: str, caption: str,
                 rows: int, draw: Any) -> list[Figure]:
    """Figures with a row per benchmark, `rows` benchmarks each:
    draw(path, title, members) renders one."""
    chunks = parts(plan.measured, rows)
    figures = []
    for index, members in enumerate(chunks):
        part = _part_note(index, len(chunks), rows, len(plan.measured), "benchmarks")
        name, path = plan.path(kind if len(chunks) == 1 else f"{kind}.{index + 1}")
        draw(path, f"{plan.where}: {what}{part}", members)
        figures.append(Figure(name, f"{plan.name}: {what}{part}", caption))
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
                        caption + ".", render.spread_rows(len(drawn)),
                        lambda path, title, members:
                        render.spread_figure(path, title, members, drawn))


def _section(outdir: str, names: PngNames, file_slug: str, file_label: str,
             section: series.Section, context: dict[str, Any],
             paired: tuple[str, set[str]] = ("", set())) -> GroupSection:
    """A section's figures: each sweeping family's scaling figures, one bar
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
        drawn = _scaling(plan, axis, context)
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


def _comparisons(outdir: str, names: PngNames, labels: list[str],
                 comparisons: list[comparison.Comparison]) -> list[Figure]:
    """A figure per metric: every contender's change against the baseline,
    coloured by scripts/compare.py's verdict of that row."""
    figures = []
    metrics = list(dict.fromkeys(m for c in comparisons for m in c.metrics))
    for metric in metrics:
        contenders = []
        for label, c in zip(labels[1:], comparisons):
            chs = series.changes(c, metric)
            if chs:
                contenders.append((label, chs))
        if not contenders:
            continue
        higher = benchjson.is_higher_better(metric)
        keys = list(dict.fromkeys(c.key for _, chs in contenders for c in chs))
        chunks = parts(keys, MAX_ROWS)
        for index, chunk in enumerate(chunks):
            part = _part_note(index, len(chunks), MAX_ROWS, len(keys), "benchmarks")
            wanted = set(chunk)
            name = names.take("compare", metric, *([str(index + 1)] if len(chunks) > 1 else []))
            render.comparison_figure(
                os.path.join(outdir, name), f"{metric}: change vs {labels[0]}{part}", metric,
                [(label, [c for c in chs if c.key in wanted]) for label, chs in contenders],
                higher)
            figures.append(_comparison_figure(name, metric, labels[0], part,
                                              comparisons[0].alpha, higher))
    return figures


def paired_families(base: list[series.Instance], head: list[series.Instance]
                    ) -> dict[str, tuple[series.XAxis, list[series.Instance],
                                         list[series.Instance]]]:
    """Families that sweep the same argument in both files: family ->
    (axis, the baseline's measured benchmarks, the contender's). Each gets
    one scaling figure with both files' lines in the comparison section,
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


def _paired_scaling(outdir: str, names: PngNames, labels: tuple[str, str],
                    sides: tuple[list[series.Instance], list[series.Instance]],
                    context: dict[str, Any]) -> list[Figure]:
    """Per family that sweeps the same argument in both files: the baseline's
    lines (solid) and the contender's (dashed) on one scaling figure."""
    figures = []
    for family, (axis, base_measured, head_measured) in paired_families(*sides).items():
        both = base_measured + head_measured
        metrics = series.ordered_metrics(both)
        constant = _constant_metrics(both, metrics)
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
            part = _part_note(index, len(chunks), MAX_LINES, len(keys), "lines")
            name = names.take("compare", labels[1], family, "scaling",
                              *([str(index + 1)] if len(chunks) > 1 else []))
            render.scaling_figure(
                os.path.join(outdir, name),
                f"{family}: {labels[0]} (solid) vs {labels[1]} (dashed){part}",
                {k: lines[k] for k in chunk}, axis, drawn, context,
                frozenset(dashed))
            figures.append(Figure(
                name, f"{family}: scaling with {axis.name}, {labels[0]} vs {labels[1]}{part}",
                f"Mean per iteration against {axis.name}: {labels[0]} solid, "
                f"{labels[1]} dashed; error bars ±1 stddev over the repetitions."))
    return figures


def _comparison_figure(name: str, metric: str, baseline: str, part: str,
                       alpha: float, higher: bool) -> Figure:
    return Figure(
        name, f"{metric}: change vs {baseline}{part}",
        f"Change of the median {metric} per benchmark against the baseline "
        f"{baseline} ({'higher' if higher else 'lower'} is better); bars: "
        f"{compare_stats.confidence_label(alpha)} distribution-free interval "
        "from the repetitions (where the sample is too small for that level, "
        "the widest it allows); red/green: scripts/compare.py's regression/"
        "improvement verdict with its thresholds, grey: no verdict.")


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


def build_report(benches: list[benchjson.BenchFile], outdir: str,
                 progress: Callable[[str], None] | None = None,
                 names: PngNames | None = None) -> Report:
    """Renders every PNG into outdir (which must exist) and describes them.

    progress, when given, is told what is being drawn before each section
    and the comparison plots. names: the report's PNG names, for a caller
    that draws more PNGs into outdir. Raises BadInput when a file has no
    successful benchmark.
    """
    tell = progress or (lambda _: None)
    names = names or PngNames()
    labels = file_labels([b.path for b in benches])
    all_instances = []
    for bench in benches:
        insts = series.instances_of(bench)
        series.require_measurements(bench, insts)
        all_instances.append(insts)
    sections = []
    drawn = 0
    pairs = [("", set())] + [(labels[0], set(paired_families(all_instances[0], insts)))
                             for insts in all_instances[1:]]
    for bench, label, insts, paired in zip(benches, labels, all_instances, pairs):
        file_slug = slug(os.path.splitext(label)[0])
        groups = series.group_sections(insts, bench.context)
        done = []
        for index, section in enumerate(groups):
            tell(f"{label}: section {index + 1} of {len(groups)} ({section.name}), "
                 f"{drawn} plots so far")
            done.append(_section(outdir, names, file_slug, label, section,
                                 bench.context, paired))
            drawn += len(done[-1].figures)
        sections.append(FileSection(label, bench.path, bench.context, done))
    report = Report(sections)
    if len(benches) > 1:
        tell(f"comparison plots against {labels[0]}, {drawn} plots so far")
        judged = [comparison.compare(benches[0], other) for other in benches[1:]]
        report.comparisons = _comparisons(outdir, names, labels, judged)
        for label, insts in zip(labels[1:], all_instances[1:]):
            report.comparisons += _paired_scaling(
                outdir, names, (labels[0], label), (all_instances[0], insts),
                benches[0].context)
        report.verdicts = [
            Verdicts(label, compare_text.result_line(c),
                     ([c.backend.describe()] if c.backend.simulated else []) + c.warnings,
                     verdict_table(c))
            for label, c in zip(labels[1:], judged)]
    return report
