"""GitHub-flavoured markdown: a pull-request comment that always fits, and
the full report written beside it.

The comment (render) leads with the verdict (a green check only for a
comparison that passed and could have failed), what the reader must know
(inconclusive and why, different machines, simulated counts), then every
regressed row by name, the other gated changes, rows beyond their
threshold in benchmarks nothing could gate, the geomeans, why the rows
changed (gated rows first), and the rows under their threshold summarised
in <details>. It stays under LIMIT characters, GitHub's limit for a comment
(GitLab's is 1,000,000), whatever the suite: each part after the verdict
takes what room is left, in that order, and when something is left out
the comment says so and where the whole is: the full report (render_full:
every row, every attribution), which compare.py --full-output writes and
ci_compare.sh writes as compare-full.md.

Every name is escaped (formatting.md_text, md_code): no benchmark name
makes a tag, an image, a link or closes a <details>.
"""

from __future__ import annotations

from pmubench.verdicts import comparison as cmp
from pmubench.render import formatting as fmt
from pmubench.runs import machines
from pmubench.render import alloc_site_lines, attribution_lines, compare_text

# GitHub refuses a comment over 65,536 characters.
LIMIT = 65_536
# Room kept for the lines written after the budget is spent (the list of
# what was left out, the pointer to the full report).
_RESERVE = 2_000
# Rows of the details, changed rows nothing gated, and valgrind's times,
# at most, in the comment.
MAX_DETAIL_ROWS = 250
MAX_UNGATED_ROWS = 50
MAX_APART_ROWS = 50

_COLUMNS = ("Benchmark", "Metric", "Baseline", "Contender", "Change", "CI", "p",
            "Verdict")


def _table_head() -> list[str]:
    return ["| " + " | ".join(_COLUMNS) + " |",
            "|" + "|".join(":--" if i < 2 else "--:" if i < 7 else ":--"
                           for i in range(len(_COLUMNS))) + "|"]


def _table_row(r: cmp.Row, alpha: float) -> str:
    verdict = fmt.verdict(r)
    if r.verdict == cmp.REGRESSION:
        verdict = f"**{verdict}**"
    cells = (fmt.md_code(r.benchmark), fmt.md_text(r.metric),
             fmt.center(r, r.baseline), fmt.center(r, r.contender),
             fmt.row_change(r), fmt.interval(r.interval, alpha),
             fmt.p_value(r.p_value), verdict + fmt.md_text(fmt.work_note(r)))
    return "| " + " | ".join(cells) + " |"


def _table(rows: list[cmp.Row], alpha: float) -> list[str]:
    return _table_head() + [_table_row(r, alpha) for r in rows]


class _Budget:
    """The characters the comment has left (None: no limit, the full
    report), and what was left out of it."""

    def __init__(self, chars: int | None):
        self.left = chars
        self.left_out: list[str] = []

    def take(self, lines: list[str]) -> bool:
        """Spends the room for lines if there is; False otherwise."""
        size = sum(len(line) + 1 for line in lines)
        if self.left is not None and size > self.left:
            return False
        if self.left is not None:
            self.left -= size
        return True

    def rows(self, rows: list[cmp.Row], alpha: float, limit: int) -> list[cmp.Row]:
        """The first rows whose table lines fit (at most limit; every row
        without a limit)."""
        if self.left is None:
            return rows
        kept: list[cmp.Row] = []
        for r in rows[:limit]:
            if not self.take([_table_row(r, alpha)]):
                break
            kept.append(r)
        return kept


def largest_changes(rows: list[cmp.Row], limit: int) -> list[cmp.Row]:
    """At most limit rows, those whose change is largest against their
    threshold (1% for ungated metrics), largest first."""
    def size(r: cmp.Row) -> float:
        return abs(r.change) * 100.0 / (r.threshold.pct or 1.0)
    return sorted(rows, key=size, reverse=True)[:limit]


def _in_order(rows: list[cmp.Row], kept: list[cmp.Row]) -> list[cmp.Row]:
    """kept, in the order of rows."""
    ids = {id(r) for r in kept}
    return [r for r in rows if id(r) in ids]


def split_simulated(c: cmp.Comparison) -> tuple[list[cmp.Row], list[cmp.Row]]:
    """(the rows the details list, gated rows first; the rows shown apart).
    Under a simulated comparison the times no verdict judged are
    valgrind's, tens of times slower than native: they go apart, so they
    never crowd a gated count out of the list. Otherwise every row, in
    order, and nothing apart."""
    if not c.backend.simulated:
        return c.rows, []
    apart = [r for r in c.rows if r.simulator_time]
    kept = [r for r in c.rows if not r.simulator_time]
    return ([r for r in kept if r.verdict != cmp.NOT_GATED]
            + [r for r in kept if r.verdict == cmp.NOT_GATED]), apart


def _ranked(c: cmp.Comparison, listed: list[cmp.Row]) -> list[cmp.Row]:
    """The details' rows by importance: under a simulated comparison every
    gated row first, then the largest changes of the others; otherwise the
    largest changes."""
    if not c.backend.simulated:
        return largest_changes(listed, len(listed))
    gated = [r for r in listed if r.verdict != cmp.NOT_GATED]
    others = [r for r in listed if r.verdict == cmp.NOT_GATED]
    return largest_changes(gated, len(gated)) + largest_changes(others, len(others))


def _details(c: cmp.Comparison, budget: _Budget, where: str) -> list[str]:
    """The rows inside <details> (all of them, or the largest changes the
    comment has room for); under a simulated comparison the gated counts
    first, valgrind's times apart."""
    listed, apart = split_simulated(c)
    limit = MAX_DETAIL_ROWS if budget.left is not None else len(listed)
    shown = _in_order(listed, budget.rows(_ranked(c, listed), c.alpha, limit))
    noun = "counted rows" if apart else "rows"
    if len(shown) == len(listed):
        summary = f"All {len(listed)} {noun}"
    else:
        order = ", gated ones first" if apart else ""
        summary = (f"The {len(shown)} largest changes of {len(listed)} {noun}"
                   f"{order} (all of them: {where})")
        budget.left_out.append(f"{len(listed) - len(shown)} {noun} of the details")
    out = ["", f"<details><summary>{summary}</summary>", ""]
    out += _table(shown, c.alpha) + ["", "</details>", ""]
    if apart:
        out += _apart(c, apart, budget)
    return out


def _apart(c: cmp.Comparison, apart: list[cmp.Row], budget: _Budget) -> list[str]:
    """Valgrind's times, said not compared: the largest changes."""
    limit = MAX_APART_ROWS if budget.left is not None else len(apart)
    times = _in_order(apart, budget.rows(largest_changes(apart, len(apart)),
                                         c.alpha, limit))
    more = (f", the {len(times)} largest changes of {len(apart)}"
            if len(times) < len(apart) else f", {len(apart)} rows")
    out = [f"<details><summary>Valgrind's times, not compared{more}: the "
           "simulator's, tens of times slower than native; they judge "
           "nothing here</summary>", ""]
    return out + _table(times, c.alpha) + ["", "</details>", ""]


def _geomean_rows(c: cmp.Comparison) -> list[str]:
    """The geomean table's rows; under a simulated comparison valgrind's
    times last, said not compared."""
    first_rows: dict[str, cmp.Row] = {}
    for r in c.rows:
        first_rows.setdefault(r.metric, r)
    order = c.metric_order
    out = []
    for g in sorted(c.geomeans, key=lambda g: order.index(g.metric)):
        first = first_rows[g.metric]
        gate = ("not compared (valgrind's)" if first.simulator_time
                else fmt.threshold(first.threshold))
        out.append(f"| {fmt.md_text(g.metric)} | {fmt.change(g.change)} | "
                   f"{g.benchmarks} | {gate} |")
    return out


def headline(c: cmp.Comparison) -> str:
    word = c.result
    regressions = c.count(cmp.REGRESSION)
    if regressions:
        return (f":x: {regressions} regression(s) beyond threshold in "
                f"{len(c.regressed_benchmarks)} benchmark(s)")
    if word == "fail":
        return ":x: a baseline benchmark is missing or failed in the contender (--strict)"
    if word == "inconclusive":
        return ":warning: INCONCLUSIVE: nothing in this comparison could catch a slowdown"
    return ":white_check_mark: no regression beyond threshold"


def _top(c: cmp.Comparison) -> list[str]:
    """The headline and what the reader must know before any table."""
    out = [f"### pmubench comparison: {headline(c)}", ""]
    if c.inconclusive is not None:
        out += [f"> :warning: **Inconclusive:** {fmt.md_text(c.inconclusive)}. A "
                "comparison that could not fail is not a pass (compare.py exit "
                "4; `--allow-inconclusive` exits 0).", ""]
    if c.machine_differences:
        out += ["> :warning: **Different machines:** "
                f"{fmt.md_text(machines.machine_headline(c.machine_differences))}", ""]
    if c.backend.simulated:
        gate = c.simulated_gate
        out += [f"> **Simulated counts.** {fmt.md_text(c.backend.describe())}."
                + (f" {fmt.md_text(gate)}." if gate else ""), ""]
    out += [f"Baseline {fmt.md_code(c.baseline_path)}, contender "
            f"{fmt.md_code(c.contender_path)}. Change is of the medians; CI is a "
            f"{fmt.interval_heading(c.rows, c.alpha, c.confidence)}; p is a "
            f"two-sided Mann-Whitney U test (alpha {c.alpha:g}).", ""]
    out += [f"> :warning: **Warning:** {fmt.md_text(w)}" for w in c.warnings]
    if c.warnings:
        out.append("")
    return out


def _changed(c: cmp.Comparison, budget: _Budget, where: str) -> list[str]:
    """The gated changes, regressions first: as table rows while there is
    room, then the regressions left by name, then how many more and
    where."""
    changed = [r for r in c.rows if r.verdict in (cmp.REGRESSION, cmp.IMPROVEMENT)]
    changed.sort(key=lambda r: r.verdict != cmp.REGRESSION)
    if not changed:
        return (["No metric changed beyond its threshold.", ""]
                if c.inconclusive is None else [])
    out = _table_head()
    # The table takes at most half the room: the names of the regressions
    # it leaves out take the rest.
    half = _Budget(None if budget.left is None else budget.left // 2)
    shown = half.rows(changed, c.alpha, len(changed))
    budget.take([_table_row(r, c.alpha) for r in shown] + out)
    out += [_table_row(r, c.alpha) for r in shown] + [""]
    rest = changed[len(shown):]
    named = [f"{fmt.md_code(r.benchmark)} {fmt.md_text(r.metric)} {fmt.row_change(r)}"
             for r in rest if r.verdict == cmp.REGRESSION]
    listed = []
    for name in named:
        if not budget.take([name + ", "]):
            break
        listed.append(name)
    if listed:
        out += ["Also regressed: " + ", ".join(listed) + ".", ""]
    unnamed = len(named) - len(listed)
    improvements = sum(1 for r in rest if r.verdict == cmp.IMPROVEMENT)
    if unnamed or improvements:
        parts = ([f"{unnamed} more regressed row(s)"] if unnamed else []) + (
            [f"{improvements} improved row(s)"] if improvements else [])
        out += [f"**{' and '.join(parts)}** not listed here: {where}.", ""]
        budget.left_out.append(" and ".join(parts))
    return out


def _ungated(c: cmp.Comparison, budget: _Budget) -> list[str]:
    """Rows beyond their threshold in benchmarks nothing could gate."""
    ungated = c.ungated_changed
    if not ungated:
        return (["No metric changed beyond its threshold, but nothing was gated "
                 "either.", ""]
                if c.inconclusive is not None and not c.regressions
                and not c.count(cmp.IMPROVEMENT) else [])
    limit = MAX_UNGATED_ROWS if budget.left is not None else len(ungated)
    shown = _in_order(ungated, budget.rows(largest_changes(ungated, len(ungated)),
                                           c.alpha, limit))
    more = (f" (the {len(shown)} largest of {len(ungated)})"
            if len(shown) < len(ungated) else "")
    return ([f"**Changed beyond the threshold but not gated**{more}, in "
             "benchmarks where nothing could catch a slowdown: these rows "
             "cannot fail the comparison; read them as a hint.", ""]
            + _table(shown, c.alpha) + [""])


def _why(c: cmp.Comparison, budget: _Budget, where: str) -> list[str]:
    """Why each changed row changed: a section per attributed row, gated
    rows first (the model's order), as many as there is room for."""
    if not (c.attributions or c.attribution_notes or c.alloc_sites
            or c.alloc_site_notes):
        return []
    out = ["", "#### Why it changed", ""]
    shown = 0
    sections = ([alloc_site_lines.markdown_section(a) for a in c.alloc_sites]
                + [attribution_lines.markdown_section(a) for a in c.attributions])
    for section in sections:
        if not budget.take(section):
            break
        out += section
        shown += 1
    if shown < len(sections):
        left = len(sections) - shown
        out += [f"{left} more section(s), rows under their threshold last: "
                f"{where}.", ""]
        budget.left_out.append(f"{left} attribution section(s)")
    notes = [f"- {fmt.md_text(n)}" for n in c.attribution_notes + c.alloc_site_notes]
    if notes and budget.take(notes):
        out += notes + [""]
    elif notes:
        out += [f"- {len(notes)} note(s) on rows without an attribution: {where}.", ""]
    return out[:-1]


def _summary(c: cmp.Comparison, room: int | None, where: str) -> list[str]:
    """The lists, notes and result line as a bulleted list; in the comment
    (room) at most a quarter of it, the result line always."""
    lines = [f"- {fmt.md_text(line)}" for line in compare_text.summary_lines(c)]
    if room is None or sum(len(line) + 1 for line in lines) <= room // 4:
        return lines
    kept, size = [], 0
    for line in lines[:-1]:
        size += len(line) + 1
        if size > room // 4:
            break
        kept.append(line)
    left = len(lines) - 1 - len(kept)
    return kept + [f"- {left} more line(s) of lists and notes: {where}.", lines[-1]]


def _where(full_name: str | None) -> str:
    if full_name:
        return (f"the full report, {fmt.md_code(full_name)}, written beside "
                "this comment (a CI job uploads it as an artifact)")
    return ("compare.py --full-output FILE writes the full report, "
            "--format text or json every row")


def render(c: cmp.Comparison, full_name: str | None = None) -> str:
    """The comment: under LIMIT characters. full_name: the full report's
    file name, which the comment points to when it leaves something out."""
    room = LIMIT - _RESERVE
    text = _render(c, room, full_name)
    # The budget counts the rows and sections, not every line around them:
    # should those tip it over, take the excess off the room and again.
    while len(text) >= LIMIT and room > 0:
        room -= len(text) - LIMIT + _RESERVE
        text = _render(c, room, full_name)
    return text


def render_full(c: cmp.Comparison) -> str:
    """The full report: every row and every attribution, whatever its size."""
    return _render(c, None, None)


def _render(c: cmp.Comparison, room: int | None, full_name: str | None) -> str:
    where = _where(full_name)
    top, summary = _top(c), _summary(c, room, where)
    budget = _Budget(room)
    budget.take(top + summary)
    changed = _changed(c, budget, where)
    ungated = _ungated(c, budget)
    geomeans = (["| Metric | Geomean change | Benchmarks | Threshold |",
                 "|:--|--:|--:|--:|"] + _geomean_rows(c))
    budget.take(geomeans)
    why = _why(c, budget, where)
    details = _details(c, budget, where)
    out = top + changed + ungated + geomeans + why + details + summary
    if budget.left_out:
        out.insert(2, f"> Left out of this comment to fit: "
                      f"{'; '.join(budget.left_out)}; {where}.")
        out.insert(3, "")
    return "\n".join(out) + "\n"
