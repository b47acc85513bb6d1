"""Writes a whole report directory: load, render into staging, swap in."""

from __future__ import annotations

import os
from typing import Callable

from pmubench import benchjson
from pmubench.report import build, html_page, outdir as outdir_mod


def write_report(files: list[str], outdir: str,
                 progress: Callable[[str], None] | None = None) -> build.Report:
    """Loads, renders into a staging directory and swaps it in as outdir.

    progress, when given, is told each step (see build.build_report)."""
    tell = progress or (lambda _: None)
    benches = []
    for path in files:
        tell(f"loading {path}")
        benches.append(benchjson.load(path))
    staging = outdir_mod.stage(outdir)
    try:
        rep = build.build_report(benches, staging, progress)
        tell("writing index.html")
        page = os.path.join(staging, "index.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(html_page.render_page(rep))
        outdir_mod.publish(staging, outdir)
    except BaseException:
        outdir_mod.discard(staging)
        raise
    return rep
