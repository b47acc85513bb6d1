"""Aligned plain-text report, one table per metric, for a terminal or CI log.

The top says what the reader must know before any table: an inconclusive
result and why, different machines, simulated counts."""

from __future__ import annotations

from pmubench.verdicts import comparison as cmp
from pmubench.verdicts import thresholds
from pmubench.render import formatting as fmt
from pmubench.runs import machines
from pmubench.render import attribution_lines

_RED, _GREEN, _DIM, _BOLD, _RESET = "\033[31m", "\033[32m", "\033[2m", "\033[1m", "\033[0m"
_YELLOW = "\033[33m"
_HEADER = ("Benchmark", "Baseline", "Contender", "Change", "CI", "p", "Verdict")
_RIGHT = (False, True, True, True, False, True, False)


def _paint(text: str, row_verdict: str, color: bool) -> str:
    if not color:
        return text
    code = {cmp.REGRESSION: _RED + _BOLD, cmp.IMPROVEMENT: _GREEN,
            cmp.NOT_GATED: _DIM}.get(row_verdict)
    return f"{code}{text}{_RESET}" if code else text


def _table(cells: list[tuple[str, ...]], verdicts: list[str | None],
           color: bool) -> list[str]:
    widths = [max(len(row[i]) for row in cells) for i in range(len(_HEADER))]
    lines = []
    for row, verdict in zip(cells, verdicts):
        parts = [c.rjust(w) if right else c.ljust(w)
                 for c, w, right in zip(row, widths, _RIGHT)]
        line = "  ".join(parts).rstrip()
        lines.append(_paint(line, verdict, color) if verdict else line)
    return lines


def is_valgrind_time(c: cmp.Comparison, row: cmp.Row) -> bool:
    """A time of a simulated comparison that no verdict judged: valgrind's,
    not the code's (every format lists these after the counts)."""
    return (c.backend.simulated and row.verdict == cmp.NOT_GATED
            and thresholds.is_time(row.metric))


def metrics_in_order(c: cmp.Comparison) -> list[str]:
    """c.metrics; under a simulated comparison the metrics whose rows are
    all valgrind's unjudged times go last, so the tables lead with the
    gated counts."""
    if not c.backend.simulated:
        return list(c.metrics)
    times = {r.metric for r in c.rows if is_valgrind_time(c, r)}
    times -= {r.metric for r in c.rows if not is_valgrind_time(c, r)}
    return ([m for m in c.metrics if m not in times]
            + [m for m in c.metrics if m in times])


def inconclusive_headline(c: cmp.Comparison) -> str:
    return ("INCONCLUSIVE: nothing in this comparison could catch a slowdown: "
            f"{c.inconclusive}")


def top_lines(c: cmp.Comparison, color: bool = False) -> list[str]:
    """Inconclusive, different machines, simulated counts: first."""
    out = []
    if c.inconclusive is not None:
        line = inconclusive_headline(c)
        out.append(f"{_YELLOW}{_BOLD}{line}{_RESET}" if color else line)
    if c.machine_differences:
        out.append("DIFFERENT MACHINES: " + machines.machine_headline(c.machine_differences))
    if c.backend.simulated:
        out.append(c.backend.describe())
        gate = c.simulated_gate()
        if gate:
            out.append(gate)
    return out


def render(c: cmp.Comparison, color: bool = False) -> str:
    out = top_lines(c, color)
    out += [f"Baseline:  {c.baseline_path}", f"Contender: {c.contender_path}",
            f"CI: {fmt.interval_heading(c.rows, c.alpha)} of the change; p: two-sided Mann-Whitney U; alpha {c.alpha:g}"]
    if any(r.mode != cmp.U_TEST for r in c.rows):
        out.append("Verdicts marked (few reps) or (threshold only) rest on less "
                   "evidence than the test; compare.py --help says how")
    out.append("")
    by_metric: dict[str, list[cmp.Row]] = {}
    for r in c.rows:
        by_metric.setdefault(r.metric, []).append(r)
    geomeans = {g.metric: g for g in c.geomeans}
    for metric in metrics_in_order(c):
        rows = by_metric[metric]
        out.append(fmt.metric_heading(rows[0]))
        cells: list[tuple[str, ...]] = [_HEADER]
        verdicts: list[str | None] = [None]
        for r in rows:
            cells.append((r.benchmark, fmt.value(r.baseline.center, r.unit),
                          fmt.value(r.contender.center, r.unit),
                          fmt.change(r.change), fmt.interval(r.interval, c.alpha),
                          fmt.p_value(r.p_value), fmt.verdict(r) + fmt.work_note(r)))
            verdicts.append(r.verdict)
        geo = geomeans[metric]
        cells.append((f"geomean ({geo.benchmarks})", "", "", fmt.change(geo.change),
                      "", "", ""))
        verdicts.append(None)
        out += _table(cells, verdicts, color)
        out.append("")
    out += attribution_lines.text_lines(c)
    out += summary_lines(c)
    return "\n".join(out) + "\n"


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
    counts = (f"{c.count(cmp.REGRESSION)} regression(s), "
              f"{c.count(cmp.IMPROVEMENT)} improvement(s), "
              f"{c.count(cmp.NO_CHANGE)} no significant change, "
              f"{c.count(cmp.NOT_GATED)} not gated")
    benchmarks = f"{len(c.regressed_benchmarks)} benchmark(s) regressed"
    if c.regressions:
        worst = ", ".join(f"{r.benchmark} {r.metric} {fmt.change(r.change)}"
                          for r in c.regressions[:5])
        more = f" and {len(c.regressions) - 5} more" if len(c.regressions) > 5 else ""
        return f"Result: FAIL: {benchmarks}; {counts}: {worst}{more}"
    word = cmp.result_word(c)
    if word == "fail":   # --strict: a benchmark missing or failed in the contender
        return (f"Result: FAIL (--strict): a baseline benchmark is missing or "
                f"failed in the contender; {benchmarks}; {counts}")
    if word == "inconclusive":
        return (f"Result: INCONCLUSIVE: nothing could catch a slowdown "
                f"({c.inconclusive}); {benchmarks}; {counts}")
    return f"Result: PASS: {benchmarks}; {counts}"
