"""Builds a report: plans each figure (plan.py, plan_comparison.py), then
draws it (draw.py), section by section, telling progress.

build_report() writes every PNG into a directory and returns a Report: the
titles, captions and value tables html_page.py lays out. The first file is
the baseline of the comparison plots when several files are given.
"""

from __future__ import annotations

import os
from typing import Callable

from pmubench.render import compare_text
from pmubench.report import draw, plan, plan_comparison, plan_diff_flame, series
from pmubench.report.flame_plot import diff_flame_svg
from pmubench.report.model import (
    Figure, FileSection, PngNames, Report, Verdicts, file_labels, slug)
from pmubench.runs import benchjson
from pmubench.runs.folded import Frame
from pmubench.verdicts import comparison


def _file_sections(benches: list[benchjson.BenchFile], outdir: str, names: PngNames,
                   labels: list[str], instances: list[list[series.Instance]],
                   tell: Callable[[str], None]) -> list[FileSection]:
    """Each file's sections, planned and drawn one after the other."""
    files = []
    drawn = 0
    pairs = [("", set())] + [(labels[0], set(plan_comparison.paired_families(
        instances[0], insts))) for insts in instances[1:]]
    for bench, label, insts, paired in zip(benches, labels, instances, pairs):
        file_slug = slug(os.path.splitext(label)[0])
        groups = series.group_sections(insts, bench.context)
        done = []
        for index, section in enumerate(groups):
            tell(f"{label}: section {index + 1} of {len(groups)} ({section.name}), "
                 f"{drawn} plots so far")
            done.append(plan.section(outdir, names, file_slug, label, section,
                                     bench.context, paired))
            draw.draw_figures(done[-1].figures)
            drawn += len(done[-1].figures)
        files.append(FileSection(label, bench.path, bench.context, done))
    return files


def _compare_files(report: Report, benches: list[benchjson.BenchFile], outdir: str,
                   names: PngNames, labels: list[str],
                   instances: list[list[series.Instance]],
                   folded: tuple[Frame, Frame] | None = None) -> None:
    """The comparison section: each contender against the first file."""
    judged = [comparison.compare(benches[0], other) for other in benches[1:]]
    report.comparisons = plan_comparison.comparisons(outdir, names, labels, judged)
    for label, insts in zip(labels[1:], instances[1:]):
        report.comparisons += plan_comparison.paired_sweeps(
            outdir, names, (labels[0], label), (instances[0], insts),
            benches[0].context)
    draw.draw_figures(report.comparisons)
    report.verdicts = [
        Verdicts(label, compare_text.result_line(c),
                 ([c.backend.describe()] if c.backend.simulated else [])
                 + ([c.simulated_gate] if c.backend.simulated and c.simulated_gate
                    else []) + c.warnings,
                 plan_comparison.verdict_table(c))
        for label, c in zip(labels[1:], judged)]
    used: set[str] = set()
    for index, (verdicts, c) in enumerate(zip(report.verdicts, judged)):
        prefix = "" if index == 0 else f"{slug(verdicts.contender)}."
        _diff_flames(verdicts, c, outdir, (labels[0], verdicts.contender),
                     folded if len(judged) == 1 else None, used, prefix)


def _diff_flames(verdicts: Verdicts, c: comparison.Comparison, outdir: str,
                 labels: tuple[str, str], folded: tuple[Frame, Frame] | None,
                 used: set[str], prefix: str) -> None:
    """Plans and writes the contender's differential flame graphs (SVG)."""
    for flame in plan_diff_flame.plan(c, labels, folded, used, prefix):
        with open(os.path.join(outdir, flame.filename), "w", encoding="utf-8") as f:
            f.write(diff_flame_svg(flame))
        verdicts.diff_flames.append(Figure(
            flame.filename, f"differential flame graph of {flame.benchmark}",
            f"{flame.title}; {flame.exactness}. Hover a box for base -> head "
            "and the change per iteration; '+' marks a frame only the "
            "contender has; frames only the baseline has are named under "
            "the graph."))
        verdicts.flame_of[flame.benchmark] = flame.filename
    verdicts.flame_notes += [f"No differential flame graph for {n}"
                             for n in c.attribution_notes]


def build_report(benches: list[benchjson.BenchFile], outdir: str,
                 progress: Callable[[str], None] | None = None,
                 names: PngNames | None = None,
                 folded: tuple[Frame, Frame] | None = None) -> Report:
    """Renders every PNG into outdir (which must exist) and describes them.

    progress, when given, is told what is being drawn before each section
    and the comparison plots. names: the report's PNG names, for a caller
    that draws more PNGs into outdir. folded: the baseline's and the
    contender's call chains (two files only), for the differential flame
    graphs (plan_diff_flame.py). Raises BadInput when a file has no
    successful benchmark.
    """
    tell = progress or (lambda _: None)
    names = names or PngNames()
    labels = file_labels([b.path for b in benches])
    instances = []
    for bench in benches:
        insts = series.instances_of(bench)
        series.require_measurements(bench, insts)
        instances.append(insts)
    report = Report(_file_sections(benches, outdir, names, labels, instances, tell))
    if len(benches) > 1:
        drawn = len(report.figures())
        tell(f"comparison plots against {labels[0]}, {drawn} plots so far")
        _compare_files(report, benches, outdir, names, labels, instances, folded)
    return report
