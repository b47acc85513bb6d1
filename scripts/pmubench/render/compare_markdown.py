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
# Valgrind's times under a simulated comparison, listed after the counts.
MAX_APART_ROWS = 50

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
        verdict += _escape(fmt.work_note(r))
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


def split_simulated(c: cmp.Comparison) -> tuple[list[cmp.Row], list[cmp.Row]]:
    """(the rows the details list, gated rows first; the rows shown apart).
    Under a simulated comparison the times no verdict judged are
    valgrind's, tens of times slower than native: they go apart, so they
    never crowd a gated count out of the list. Otherwise every row, in
    order, and nothing apart."""
    if not c.backend.simulated:
        return c.rows, []
    apart = [r for r in c.rows if compare_text.is_valgrind_time(c, r)]
    kept = [r for r in c.rows if not compare_text.is_valgrind_time(c, r)]
    return ([r for r in kept if r.verdict != cmp.NOT_GATED]
            + [r for r in kept if r.verdict == cmp.NOT_GATED]), apart


def _gated_first(rows: list[cmp.Row], limit: int) -> list[cmp.Row]:
    """At most limit rows: every gated row (the largest changes of them
    when they alone exceed limit), then the largest of the others."""
    gated = [r for r in rows if r.verdict != cmp.NOT_GATED]
    others = [r for r in rows if r.verdict == cmp.NOT_GATED]
    shown = largest_changes(gated, limit)
    return shown + largest_changes(others, max(0, limit - len(shown)))


def _details(c: cmp.Comparison) -> list[str]:
    """Every row (or the largest changes) inside <details>; under a
    simulated comparison the gated counts first, valgrind's times apart."""
    listed, apart = split_simulated(c)
    shown = (_gated_first(listed, MAX_DETAIL_ROWS) if c.backend.simulated
             else largest_changes(listed, MAX_DETAIL_ROWS))
    if apart:
        summary = (f"All {len(listed)} counted rows" if len(shown) == len(listed)
                   else f"The {len(shown)} largest changes of {len(listed)} "
                   "counted rows, gated ones first (all of them: --format text "
                   "or json)")
    else:
        summary = (f"All {len(c.rows)} rows" if len(shown) == len(c.rows) else
                   f"The {len(shown)} largest changes of {len(c.rows)} rows "
                   "(all of them: --format text or json)")
    out = ["", f"<details><summary>{summary}</summary>", ""]
    out += _table(shown, c.alpha) + ["", "</details>", ""]
    if apart:
        times = largest_changes(apart, MAX_APART_ROWS)
        more = (f", the {len(times)} largest changes of {len(apart)}"
                if len(times) < len(apart) else f", {len(apart)} rows")
        out += [f"<details><summary>Valgrind's times, not compared{more}: the "
                "simulator's, tens of times slower than native; they judge "
                "nothing here</summary>", ""]
        out += _table(times, c.alpha) + ["", "</details>", ""]
    return out


def _geomean_rows(c: cmp.Comparison) -> list[str]:
    """The geomean table's rows; under a simulated comparison valgrind's
    times last, said not compared."""
    first_rows: dict[str, cmp.Row] = {}
    for r in c.rows:
        first_rows.setdefault(r.metric, r)
    order = compare_text.metrics_in_order(c)
    out = []
    for g in sorted(c.geomeans, key=lambda g: order.index(g.metric)):
        first = first_rows[g.metric]
        gate = ("not compared (valgrind's)"
                if compare_text.is_valgrind_time(c, first)
                else fmt.threshold(first.threshold))
        out.append(f"| {_escape(g.metric)} | {fmt.change(g.change)} | "
                   f"{g.benchmarks} | {gate} |")
    return out


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
        gate = c.simulated_gate()
        out += [f"> **Simulated counts.** {_escape(c.backend.describe())}."
                + (f" {_escape(gate)}." if gate else ""), ""]
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
               r.verdict == cmp.NOT_GATED and gates.changed_beyond(r)
               and not compare_text.is_valgrind_time(c, r)]
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
    out += _geomean_rows(c)
    why = attribution_lines.markdown_lines(c)
    if why:   # after the geomeans: why each changed row changed
        out += [""] + why[:-1]
    out += _details(c)
    out += [f"- {_escape(line)}" for line in compare_text.summary_lines(c)]
    return "\n".join(out) + "\n"
