"""How many benchmark rows a figure holds: planning asks it (how many
figures a section's bars or spread need) and draw.py lays figures out
with the same inches. No matplotlib here."""

from __future__ import annotations

import math

# Inches: a figure's title band, the highest a figure may be drawn, a bar
# or box row, the pad above the first row and below the last.
SUPTITLE_IN = 0.5
MAX_HEIGHT_IN = 28.0
ROW_IN = 0.26
PANEL_PAD_IN = 0.3


def _rows_that_fit(panels: int, most: int) -> int:
    """How many benchmark rows a figure of `panels` panels holds within
    MAX_HEIGHT_IN (at least 5, at most `most`)."""
    grid_rows = math.ceil(panels / min(3, max(1, panels)))
    fixed = SUPTITLE_IN + 0.25 + 0.55 + (grid_rows - 1) * 0.85 + grid_rows * PANEL_PAD_IN
    fits = int((MAX_HEIGHT_IN - fixed) / (grid_rows * ROW_IN))
    return max(5, min(most, fits))


def bar_rows(panels: int, most: int = 40) -> int:
    """Benchmarks per bars_figure of `panels` metrics."""
    return _rows_that_fit(panels, most)


def spread_rows(panels: int, most: int = 40) -> int:
    """Benchmarks per spread_figure of `panels` metrics."""
    return _rows_that_fit(panels, most)
