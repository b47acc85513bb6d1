"""GitHub-flavoured markdown for a pull-request comment: the verdict first,
the changed rows, the geomeans, then every row inside <details>."""

from __future__ import annotations

from pmubench.compare import comparison as cmp
from pmubench.compare import formatting as fmt
from pmubench.compare import render_text
from pmubench.compare import stats

# GitHub rejects comments over 65,536 characters; a row is about 130.
MAX_DETAIL_ROWS = 250

_COLUMNS = ("Benchmark", "Metric", "Baseline", "Contender", "Change", "CI", "p",
            "Verdict")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _table(rows: list[cmp.Row], alpha: float) -> list[str]:
    out = ["| " + " | ".join(_COLUMNS) + " |",
           "|" + "|".join(":--" if i < 2 else "--:" if i < 7 else ":--"
                          for i in range(len(_COLUMNS))) + "|"]
    for r in rows:
        verdict = fmt.verdict(r)
        if r.verdict == cmp.REGRESSION:
            verdict = f"**{verdict}**"
        cells = (f"`{_escape(r.benchmark)}`", _escape(r.metric),
                 fmt.value(r.baseline.center, r.unit),
                 fmt.value(r.contender.center, r.unit), fmt.change(r.change),
                 fmt.interval(r.interval, alpha), fmt.p_value(r.p_value), verdict)
        out.append("| " + " | ".join(cells) + " |")
    return out


def largest_changes(rows: list[cmp.Row], limit: int) -> list[cmp.Row]:
    """At most limit rows, those whose change is largest against their
    threshold (1% for ungated metrics), in their original order."""
    if len(rows) <= limit:
        return rows
    def size(i: int) -> float:
        r = rows[i]
        return abs(r.change) * 100.0 / (r.threshold.pct or 1.0)
    keep = sorted(sorted(range(len(rows)), key=size, reverse=True)[:limit])
    return [rows[i] for i in keep]


def render(c: cmp.Comparison) -> str:
    regressions = c.count(cmp.REGRESSION)
    head = (f":x: {regressions} regression(s) beyond threshold in "
            f"{len(c.regressed_benchmarks)} benchmark(s)" if regressions
            else ":white_check_mark: no regression beyond threshold")
    out = [f"### pmubench comparison: {head}", "",
           f"Baseline `{_escape(c.baseline_path)}`, contender "
           f"`{_escape(c.contender_path)}`. Change is of the medians; CI is a "
           f"{stats.confidence_label(c.alpha)} Hodges-Lehmann interval; p is a "
           f"two-sided Mann-Whitney U test (alpha {c.alpha:g}).", ""]
    out += [f"> :warning: **Warning:** {_escape(w)}" for w in c.warnings]
    if c.warnings:
        out.append("")
    changed = [r for r in c.rows if r.verdict in (cmp.REGRESSION, cmp.IMPROVEMENT)]
    changed.sort(key=lambda r: r.verdict != cmp.REGRESSION)
    if changed:
        out += _table(changed, c.alpha) + [""]
    else:
        out += ["No metric changed beyond its threshold.", ""]
    out += ["| Metric | Geomean change | Benchmarks | Threshold |",
            "|:--|--:|--:|--:|"]
    for g in c.geomeans:
        first = next(r for r in c.rows if r.metric == g.metric)
        out.append(f"| {_escape(g.metric)} | {fmt.change(g.change)} | "
                   f"{g.benchmarks} | {fmt.threshold(first.threshold)} |")
    shown = largest_changes(c.rows, MAX_DETAIL_ROWS)
    summary = (f"All {len(c.rows)} rows" if len(shown) == len(c.rows) else
               f"The {len(shown)} largest changes of {len(c.rows)} rows "
               "(all of them: --format text or json)")
    out += ["", f"<details><summary>{summary}</summary>", ""]
    out += _table(shown, c.alpha)
    out += ["", "</details>", ""]
    out += [f"- {_escape(line)}" for line in render_text.summary_lines(c)]
    return "\n".join(out) + "\n"
