"""Aligned plain-text report, one table per metric, for a terminal or CI log.

The top says what the reader must know before any table: an inconclusive
result and why, different machines, simulated counts. Every line goes out
through formatting.printable, colour after it: a control character in a
name shows as \\xNN and never starts a line of its own."""

from __future__ import annotations

import itertools
import operator

from pmubench.verdicts import comparison as cmp
from pmubench.render import formatting as fmt
from pmubench.runs import machines
from pmubench.render import alloc_site_lines, attribution_lines

_RED, _GREEN, _DIM, _BOLD, _RESET = "\033[31m", "\033[32m", "\033[2m", "\033[1m", "\033[0m"
_YELLOW = "\033[33m"
_PAINT = {cmp.REGRESSION: _RED + _BOLD, cmp.IMPROVEMENT: _GREEN,
          cmp.NOT_GATED: _DIM, "inconclusive": _YELLOW + _BOLD}
_MODE = operator.attrgetter("mode")
_VERDICT = operator.attrgetter("verdict")
_HEADER = ("Benchmark", "Baseline", "Contender", "Change", "CI", "p", "Verdict")
_RIGHT = (False, True, True, True, False, True, False)


def _table(cells: list[tuple[str, ...]]) -> list[str]:
    """The cells aligned, each made printable first (its width is what
    the terminal shows)."""
    # A row of plain printable text (nearly every one) is left as it is:
    # one isprintable() of the row, not a call per cell (a suite of
    # 180,000 runs a file has two million cells).
    # The checks, the formats and the rstrips are each mapped in C.
    if not all(map(str.isprintable, map("".join, cells))):
        printable = fmt.printable
        cells = [row if "".join(row).isprintable() else tuple(map(printable, row))
                 for row in cells]
    widths = [max(map(len, column)) for column in zip(*cells)]
    # One format for every line: rjust/ljust's padding, done in C.
    line = "  ".join(f"{{{i}:{'>' if right else '<'}{w}}}"
                     for i, (w, right) in enumerate(zip(widths, _RIGHT)))
    return list(map(str.rstrip, itertools.starmap(line.format, cells)))


def _out(lines: list[str], paints: list[str | None], color: bool) -> str:
    """The report: each line printable, then painted by its verdict (or
    'inconclusive') when color."""
    if not color and all(map(str.isprintable, lines)):   # the common case, in C
        return "\n".join(lines) + "\n"
    out = []
    printable = fmt.printable
    for line, paint in zip(lines, paints):
        if not line.isprintable():   # the common case skips the call
            line = printable(line)
        out.append(f"{_PAINT[paint]}{line}{_RESET}" if color and paint in _PAINT
                   else line)
    return "\n".join(out) + "\n"


def inconclusive_headline(c: cmp.Comparison) -> str:
    return ("INCONCLUSIVE: nothing in this comparison could catch a slowdown: "
            f"{c.inconclusive}")


def top_lines(c: cmp.Comparison) -> list[str]:
    """Inconclusive, different machines, simulated counts: first."""
    out = []
    if c.inconclusive is not None:
        out.append(inconclusive_headline(c))
    if c.machine_differences:
        out.append("DIFFERENT MACHINES: " + machines.machine_headline(c.machine_differences))
    if c.backend.simulated:
        out.append(c.backend.describe())
        if c.simulated_gate:
            out.append(c.simulated_gate)
    return out


def render(c: cmp.Comparison, color: bool = False) -> str:
    out = top_lines(c)
    paints: list[str | None] = [None] * len(out)
    if c.inconclusive is not None:
        paints[0] = "inconclusive"
    out += [f"Baseline:  {c.baseline_path}", f"Contender: {c.contender_path}",
            f"CI: {fmt.interval_heading(c.rows, c.alpha, c.confidence)} of the change; p: two-sided Mann-Whitney U; alpha {c.alpha:g}"]
    if any(map(operator.ne, map(_MODE, c.rows), itertools.repeat(cmp.U_TEST))):
        out.append("Verdicts marked (few reps) or (threshold only) rest on less "
                   "evidence than the test; compare.py --help says how")
    out.append("")
    paints += [None] * (len(out) - len(paints))
    by_metric = c.by_metric()
    geomeans = {g.metric: g for g in c.geomeans}
    for metric in c.metric_order:
        rows = by_metric[metric]
        cells: list[tuple[str, ...]] = [_HEADER]
        cells += fmt.row_cells(rows, c.alpha)
        geo = geomeans[metric]
        cells.append((f"geomean ({geo.benchmarks})", "", "", fmt.change(geo.change),
                      "", "", ""))
        out += [fmt.metric_heading(rows[0])] + _table(cells) + [""]
        paints += [None, None] + list(map(_VERDICT, rows)) + [None, None]
    tail = (alloc_site_lines.text_lines(c.alloc_sites, c.alloc_site_notes)
            + attribution_lines.text_lines(c) + summary_lines(c))
    return _out(out + tail, paints + [None] * len(tail), color)


def summary_lines(c: cmp.Comparison) -> list[str]:
    """Lists, notes and the result line; shared with the markdown report."""
    p = c.pairing
    out = []
    if p.only_in_baseline:
        out.append(f"Only in baseline ({len(p.only_in_baseline)}): "
                   f"{fmt.names(p.only_in_baseline)}")
    if p.only_in_contender:
        out.append(f"Only in contender ({len(p.only_in_contender)}): "
                   f"{fmt.names(p.only_in_contender)}")
    for name, side, error in p.failed:
        out.append(f"Failed in {side}: {name}: {error}")
    for label, table in (("baseline", p.metrics_only_in_baseline),
                         ("contender", p.metrics_only_in_contender)):
        for metric, benches in table.items():
            out.append(f"Metric only in {label}: {metric} "
                       f"({len(benches)} benchmark{'s' if len(benches) != 1 else ''}: "
                       f"{fmt.names(benches, 4)})")
    out += [f"Note: {n}" for n in c.notes]
    out += [f"WARNING: {w}" for w in c.warnings]
    out.append(result_line(c))
    return out


def result_line(c: cmp.Comparison) -> str:
    # The counts and the regressions each found once: every one is a pass
    # over every row (288,000 in a suite of 180,000 runs a file).
    n = c.counts()
    counts = (f"{n[cmp.REGRESSION]} regression(s), "
              f"{n[cmp.IMPROVEMENT]} improvement(s), "
              f"{n[cmp.NO_CHANGE]} no significant change, "
              f"{n[cmp.NOT_GATED]} not gated")
    regressions = c.regressions
    benchmarks = f"{len(c.regressed_benchmarks)} benchmark(s) regressed"
    if regressions:
        worst = ", ".join(f"{r.benchmark} {r.metric} {fmt.row_move(r)}"
                          for r in regressions[:5])
        more = f" and {len(regressions) - 5} more" if len(regressions) > 5 else ""
        return f"Result: FAIL: {benchmarks}; {counts}: {worst}{more}"
    word = c.result
    if word == "fail":   # --strict: a benchmark missing or failed in the contender
        return (f"Result: FAIL (--strict): a baseline benchmark is missing or "
                f"failed in the contender; {benchmarks}; {counts}")
    if word == "inconclusive":
        return (f"Result: INCONCLUSIVE: nothing could catch a slowdown "
                f"({c.inconclusive}); {benchmarks}; {counts}")
    return f"Result: PASS: {benchmarks}; {counts}"
