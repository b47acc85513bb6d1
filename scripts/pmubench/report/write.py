"""Writes a whole report directory: load, render into staging, swap in."""

from __future__ import annotations

import os
from typing import Callable

from pmubench.runs import benchjson
from pmubench.report import build, html_page, model, outdir as outdir_mod
from pmubench.report.flame_plot import flame_svg
from pmubench.runs.folded import read_folded
from pmubench.report.profile_plot import CaseProfile, caption, plot_case, profiles_of


def write_report(files: list[str], outdir: str,
                 progress: Callable[[str], None] | None = None,
                 folded: list[str] | None = None) -> model.Report:
    """Loads, renders into a staging directory and swaps it in as outdir.

    progress, when given, is told each step (see build.build_report).
    folded: files of folded stacks (--pmubench_profile_out), each drawn as
    a flame graph. Runs profiled with --pmubench_profile get a bar chart of
    their top functions each. Every input is read before anything is
    written."""
    tell = progress or (lambda _: None)
    benches, cases = [], []
    for path in files:
        tell(f"loading {path}")
        data = benchjson.read_json(path)
        benches.append(benchjson.parse(data, path))
        cases.append(profiles_of(data, path))
    stacks = [(path, read_folded(path)) for path in folded or []]
    staging = outdir_mod.stage(outdir)
    try:
        pngs = model.PngNames()  # one set of PNG names for the whole report
        # Two runs and two folded files: the first is the baseline's call
        # chains, the second the contender's (the differential flame graphs).
        pair = (stacks[0][1], stacks[1][1]) if len(files) == 2 and len(stacks) == 2 else None
        rep = build.build_report(benches, staging, progress, pngs, pair)
        rep.profiles = _profile_charts(staging, pngs,
                                       [fs.label for fs in rep.files], cases, tell)
        names = model.file_labels([path for path, _ in stacks])
        for (path, root), label in zip(stacks, names):
            name = f"flame.{model.slug(label)}.svg"
            svg, hidden = flame_svg(root, f"{label}: {root.total} samples")
            with open(os.path.join(staging, name), "w", encoding="utf-8") as f:
                f.write(svg)
            rep.flames.append(model.Figure(
                name, f"flame graph of {label}",
                f"Folded stacks of {path}: {root.total} samples; a box's width "
                "is its share of them, callees above callers, siblings by name"
                + (f"; {hidden} frames too narrow to draw" if hidden else "")
                + ". Hover a box for its samples."))
        tell("writing index.html")
        page = os.path.join(staging, "index.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(html_page.render_page(rep))
        outdir_mod.publish(staging, outdir)
    except BaseException:
        outdir_mod.discard(staging)
        raise
    return rep


def _profile_charts(staging: str, names: model.PngNames, labels: list[str],
                    cases: list[list[CaseProfile]],
                    tell: Callable[[str], None]) -> list[model.Figure]:
    """One bar chart per profiled case of each file, drawn into staging."""
    figures = []
    for label, file_cases in zip(labels, cases):
        if file_cases:
            tell(f"{label}: {len(file_cases)} profile chart(s)")
        for case in file_cases:
            name = names.take("profile", label, case.run_name)
            plot_case(case, os.path.join(staging, name))
            figures.append(model.Figure(
                name, f"profile of {case.run_name} ({label})", caption(case)))
    return figures
