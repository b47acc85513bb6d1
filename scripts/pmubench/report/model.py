"""The report as html_page.py lays it out: files, sections, figures (each
with the Drawing draw.py makes of it), tables, compare's verdicts; the PNG
names and how figures are split in parts. No matplotlib here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Drawing:
    """What draw.py draws for one figure, decided by plan.py:
    draw.<kind>_figure(path, title, *args)."""
    kind: str       # "sweep", "bars", "spread" or "comparison"
    path: str       # the PNG
    title: str
    args: tuple = ()


@dataclass
class Figure:
    filename: str   # relative to the report directory
    title: str
    caption: str    # one line
    # What draw.py draws into filename; None for a figure made otherwise
    # (a profile's bar chart, a flame graph).
    drawing: Drawing | None = field(default=None, compare=False, repr=False)


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
    # Differential flame graphs (SVG) of its changed benchmarks, the
    # benchmark each explains, and why a changed benchmark has none.
    diff_flames: list[Figure] = field(default_factory=list)
    flame_of: dict[str, str] = field(default_factory=dict)   # benchmark -> SVG
    flame_notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    files: list[FileSection]
    comparisons: list[Figure] = field(default_factory=list)
    verdicts: list[Verdicts] = field(default_factory=list)
    profiles: list[Figure] = field(default_factory=list)  # top functions per case
    flames: list[Figure] = field(default_factory=list)  # SVG flame graphs

    def figures(self) -> list[Figure]:
        result = [f for fs in self.files for sec in fs.sections for f in sec.figures]
        diffs = [f for v in self.verdicts for f in v.diff_flames]
        return result + self.comparisons + diffs + self.profiles + self.flames


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


def part_note(index: int, count: int, size: int, total: int, what: str) -> str:
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
