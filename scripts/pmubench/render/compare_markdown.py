"""GitHub-flavoured markdown for a pull-request comment: the verdict first
(a green check only for a comparison that passed and could have failed),
what the reader must know (inconclusive and why, different machines,
simulated counts), the changed rows (gated ones, then those beyond their
threshold in benchmarks nothing could gate, in sight, never only in the
collapsed section), the geomeans, then every row inside <details>."""

from __future__ import annotations

from pmubench.verdicts import comparison as cmp
from pmubench.render import formatting as fmt
from pmubench.verdicts import gates
from pmubench.runs import machines
from pmubench.render import attribution_lines, compare_text

# GitHub rejects comments over 65,536 characters; a row is about 130.
MAX_DETAIL_ROWS = 250
# Changed rows nothing gated, shown above the details.
MAX_UNGATED_ROWS = 50

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


def headline(c: cmp.Comparison) -> str:
    word = cmp.result_word(c)
    regressions = c.count(cmp.REGRESSION)
    if regressions:
        return (f":x: {regressions} regression(s) beyond threshold in "
                f"{len(c.regressed_benchmarks)} benchmark(s)")
    if word == "fail":
        return ":x: a baseline benchmark is missing or failed in the contender (--strict)"
    if word == "inconclusive":
        return ":warning: INCONCLUSIVE: nothing in this comparison could catch a slowdown"
    return ":white_check_mark: no regression beyond threshold"


def render(c: cmp.Comparison) -> str:
    out = [f"### pmubench comparison: {headline(c)}", ""]
    if c.inconclusive is not None:
        out += [f"> :warning: **Inconclusive:** {_escape(c.inconclusive)}. A "
                "comparison that could not fail is not a pass (compare.py exit "
                "4; `--allow-inconclusive` exits 0).", ""]
    if c.machine_differences:
        out += ["> :warning: **Different machines:** "
                f"{_escape(machines.machine_headline(c.machine_differences))}", ""]
    if c.backend.simulated:
        out += [f"> **Simulated counts.** {_escape(c.backend.describe())}.", ""]
    out += [f"Baseline `{_escape(c.baseline_path)}`, contender "
            f"`{_escape(c.contender_path)}`. Change is of the medians; CI is a "
            f"{fmt.interval_heading(c.rows, c.alpha)}; p is a "
            f"two-sided Mann-Whitney U test (alpha {c.alpha:g}).", ""]
    out += [f"> :warning: **Warning:** {_escape(w)}" for w in c.warnings]
    if c.warnings:
        out.append("")
    changed = [r for r in c.rows if r.verdict in (cmp.REGRESSION, cmp.IMPROVEMENT)]
    changed.sort(key=lambda r: r.verdict != cmp.REGRESSION)
    blind = gates.blind_benchmarks(c.rows)
    ungated = [r for r in c.rows if r.benchmark in blind and
               r.verdict == cmp.NOT_GATED and gates.changed_beyond(r)]
    if changed:
        out += _table(changed, c.alpha) + [""]
    elif c.inconclusive is None:
        out += ["No metric changed beyond its threshold.", ""]
    if ungated:
        shown = largest_changes(ungated, MAX_UNGATED_ROWS)
        more = (f" (the {len(shown)} largest of {len(ungated)})"
                if len(shown) < len(ungated) else "")
        out += [f"**Changed beyond the threshold but not gated**{more}, in "
                "benchmarks where nothing could catch a slowdown: these rows "
                "cannot fail the comparison; read them as a hint.", ""]
        out += _table(shown, c.alpha) + [""]
    elif c.inconclusive is not None and not changed:
        out += ["No metric changed beyond its threshold, but nothing was gated "
                "either.", ""]
    out += ["| Metric | Geomean change | Benchmarks | Threshold |",
            "|:--|--:|--:|--:|"]
    first_rows: dict[str, cmp.Row] = {}
    for r in c.rows:
        first_rows.setdefault(r.metric, r)
    for g in c.geomeans:
        first = first_rows[g.metric]
        out.append(f"| {_escape(g.metric)} | {fmt.change(g.change)} | "
                   f"{g.benchmarks} | {fmt.threshold(first.threshold)} |")
    why = attribution_lines.markdown_lines(c)
    if why:   # after the geomeans: why each changed row changed
        out += [""] + why[:-1]
    shown = largest_changes(c.rows, MAX_DETAIL_ROWS)
    summary = (f"All {len(c.rows)} rows" if len(shown) == len(c.rows) else
               f"The {len(shown)} largest changes of {len(c.rows)} rows "
               "(all of them: --format text or json)")
    out += ["", f"<details><summary>{summary}</summary>", ""]
    out += _table(shown, c.alpha)
    out += ["", "</details>", ""]
    out += [f"- {_escape(line)}" for line in compare_text.summary_lines(c)]
    return "\n".join(out) + "\n"
