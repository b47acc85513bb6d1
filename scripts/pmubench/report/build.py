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

from pmubench import benchjson
from pmubench.compare import comparison
from pmubench.compare import formatting as compare_fmt
from pmubench.compare import render_text as compare_text
from pmubench.compare import stats as compare_stats
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
class FamilySection:
    """A family: its plots and one value table."""
    name: str       # 'BM_Chase', or 'BM_Chase (memory_hierarchy)'
    figures: list[Figure]
    table: Table
    note: str = ""  # the panels left out, and why


@dataclass
class FileSection:
    label: str
    path: str
    context: dict[str, Any]
    families: list[FamilySection]


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
        result = [f for fs in self.files for fam in fs.families for f in fam.figures]
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
class _SectionPlan:
    """What one section's figures are drawn from: a family."""
    outdir: str
    names: PngNames
    file_slug: str
    name: str                       # the family
    where: str                      # 'BM_Chase (run.json)' for figure titles
    measured: list[series.Instance]  # benchmarks with at least one result
    metrics: list[str]
    reps: int
    constant: dict[str, float]       # metrics not drawn (_constant_metrics)

    def path(self, kind: str) -> tuple[str, str]:
        name = self.names.take(self.file_slug, self.name, kind)
        return name, os.path.join(self.outdir, name)


def _scaling(plan: _SectionPlan, context: dict[str, Any]) -> list[Figure]:
    """The family's scaling figure(s) against its swept argument, if any,
    with a panel per metric that varies across the benchmarks."""
    axis = series.choose_x_axis(plan.measured)
    drawn = [m for m in plan.metrics if m not in plan.constant]
    if axis is None or not drawn:
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
                              _scaling_caption(plan, context, axis)))
    return figures


def _scaling_caption(plan: _SectionPlan, context: dict[str, Any],
                     axis: series.XAxis) -> str:
    """What a scaling figure shows, for its caption."""
    notes = [f"Mean per iteration of each metric against {axis.name}, "
             "one line per benchmark"]
    notes.append(f"error bars ±1 stddev over {plan.reps} repetitions"
                 if plan.reps > 1 else "one repetition (no error bars)")
    if axis.is_bytes and series.cache_markers(context):
        notes.append("dashed lines: cache sizes from the run's context")
    return "; ".join(notes) + "."


def _counters(plan: _SectionPlan) -> list[Figure]:
    figures = []
    fully_counted = series.fully_counted(plan.measured)
    counters = [m for m in plan.metrics if series.metric_kind(m) == "counter"
                and m not in plan.constant]
    if counters:
        caption = ("Each event (and user counter) per iteration for every "
                   "benchmark of the family; "
                   "mean, bars ±1 stddev")
        if "pmu_running_fraction" in plan.metrics and fully_counted:
            caption += ("; counters were on the PMU for the whole batch "
                        "(pmu_running_fraction = 1)")
        figures += _row_figures(plan, "counters", "counters per iteration",
                                caption + ".", lambda path, title, members:
                                render.bars_figure(path, title, members, counters))
    derived = [m for m in plan.metrics if series.metric_kind(m) == "derived"
               and m not in plan.constant]
    if fully_counted and "pmu_running_fraction" in derived:
        derived.remove("pmu_running_fraction")  # 1.0 everywhere: in the caption
    if derived:
        figures += _row_figures(
            plan, "derived", "derived metrics",
            "IPC, miss ratios and pmu_running_fraction (share of the batch "
            "the counters were on the PMU; 1 = fully counted).",
            lambda path, title, members: render.bars_figure(
                path, title, members, derived, derived=True))
    return figures


def _row_figures(plan: _SectionPlan, kind: str, what: str, caption: str,
                 draw: Any) -> list[Figure]:
    """Figures with a row per benchmark, MAX_ROWS benchmarks each:
    draw(path, title, members) renders one."""
    chunks = parts(plan.measured, MAX_ROWS)
    figures = []
    for index, members in enumerate(chunks):
        part = _part_note(index, len(chunks), MAX_ROWS, len(plan.measured), "benchmarks")
        name, path = plan.path(kind if len(chunks) == 1 else f"{kind}.{index + 1}")
        draw(path, f"{plan.where}: {what}{part}", members)
        figures.append(Figure(name, f"{plan.name}: {what}{part}", caption))
    return figures


def _spread(plan: _SectionPlan) -> list[Figure]:
    """Time and every counter whose relative spread is defined (median > 0)."""
    if plan.reps < 2:
        return []
    drawn = [m for m in plan.metrics if series.metric_kind(m) == "time"]
    skipped = []
    for m in plan.metrics:
        if series.metric_kind(m) != "counter":
            continue
        medians = [i.stats[m].median for i in plan.measured if m in i.stats]
        (drawn if medians and min(medians) > 0 else skipped).append(m)
    if not any(i.stats[m].values for i in plan.measured for m in drawn
               if m in i.stats):
        return []  # aggregates only: no repetitions to show
    caption = ("Every repetition as % deviation from its benchmark's median; "
               "box: quartiles, dots: repetitions")
    if skipped:
        caption += "; left out (a zero median): " + ", ".join(skipped)
    return _row_figures(plan, "spread", f"spread over {plan.reps} repetitions",
                        caption + ".", lambda path, title, members:
                        render.spread_figure(path, title, members, drawn))


def section_title(section: series.Section) -> str:
    """'BM_Chase (memory_hierarchy)' with its source file, else the family."""
    return f"{section.name} ({section.source})" if section.source else section.name


def _section(outdir: str, names: PngNames, file_slug: str, file_label: str,
             section: series.Section, context: dict[str, Any]) -> FamilySection:
    measured = [m for m in section.members if m.stats]
    metrics = series.ordered_metrics(measured)
    plan = _SectionPlan(outdir, names, file_slug, section.name,
                        f"{section.name} ({file_label})", measured,
                        metrics, _repetitions(measured),
                        _constant_metrics(measured, metrics))
    figures = (_scaling(plan, context) + _counters(plan) + _spread(plan)
               if measured else [])
    return FamilySection(section_title(section), figures,
                         value_table(section.members, metrics),
                         constant_note(plan.constant))


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


def _paired_scaling(outdir: str, names: PngNames, labels: tuple[str, str],
                    sides: tuple[list[series.Instance], list[series.Instance]],
                    context: dict[str, Any]) -> list[Figure]:
    """Per family that sweeps the same argument in both files: the baseline's
    lines (solid) and the contender's (dashed) on one scaling figure."""
    figures = []
    head_families = series.group_families(sides[1])
    for family, base_members in series.group_families(sides[0]).items():
        base_measured = [m for m in base_members if m.stats]
        head_measured = [m for m in head_families.get(family, []) if m.stats]
        axis = series.choose_x_axis(base_measured)
        if axis is None or not head_measured or series.choose_x_axis(head_measured) != axis:
            continue
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


def verdict_table(c: comparison.Comparison) -> Table:
    """compare.py's regressions and improvements as a table, regressions
    first, and its result line as the last row."""
    changed = [r for r in c.rows
               if r.verdict in (comparison.REGRESSION, comparison.IMPROVEMENT)]
    changed.sort(key=lambda r: r.verdict != comparison.REGRESSION)
    headers = ["benchmark", "metric", "baseline", "contender", "change",
               f"{compare_stats.confidence_label(c.alpha)} CI", "verdict"]
    rows = [[r.benchmark, r.metric, compare_fmt.value(r.baseline.center, r.unit),
             compare_fmt.value(r.contender.center, r.unit),
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
    for bench, label, insts in zip(benches, labels, all_instances):
        file_slug = slug(os.path.splitext(label)[0])
        groups = series.group_sections(insts, bench.context)
        families = []
        for index, section in enumerate(groups):
            tell(f"{label}: section {index + 1} of {len(groups)} ({section.name}), "
                 f"{drawn} plots so far")
            families.append(_section(outdir, names, file_slug, label, section,
                                     bench.context))
            drawn += len(families[-1].figures)
        sections.append(FileSection(label, bench.path, bench.context, families))
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
            Verdicts(label, compare_text.result_line(c), c.warnings, verdict_table(c))
            for label, c in zip(labels[1:], judged)]
    return report
