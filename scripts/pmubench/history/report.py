"""The trend report: DIR/index.html lists the machine identities, and each
has a page: its open change points newest first, a chart per changed
series (newest change first, at most MAX_CHARTS of them; the rest are in
the overview), and every series in a compact overview table with
sparklines, sorted by its latest change. Self-contained HTML with inline
SVG; every file is written whole (pmubench.base.atomic).

The first screen groups the change points by commit: one row per commit
and benchmark, each changed metric a line of it (a time change is one row
for cpu_time and real_time). Charts name commits on the x axis and, with
a git checkout to read (write_report's repo), give each commit's subject
on hover (svg.py, commits.py)."""

from __future__ import annotations

import json
import os
import time
from html import escape

from sqlalchemy import select

from pmubench.base import atomic
from pmubench.report import outdir as outdir_mod
from pmubench.runs import benchjson
from pmubench.verdicts import numbers
from pmubench.history import commits, detect, schema, store, svg
from pmubench.history.series import load_samples, points_of

MAX_CHARTS = 150

STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.worse{color:#b00}.better{color:#060}
section{margin:1em 0 2em}h3{font-size:15px;margin:.3em 0}code{font-size:12px}.muted{color:#777}
td div{white-space:nowrap}"""


def _page(title: str, body: list[str]) -> str:
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _day(t: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def _pct(c: detect.Change) -> str:
    if not c.before:
        return "from 0"
    worse = (c.change < 0) if benchjson.is_higher_better(c.key.metric) else (c.change > 0)
    return f'<span class="{"worse" if worse else "better"}">{numbers.pct_text(c.change)}</span>'


def _before_after(c: detect.Change) -> str:
    """'4,075,360 → 4,075,361 (+1)' for an exact series: every digit."""
    exact = c.p_value is None
    text = f"{numbers.value_text(c.before, exact)} → {numbers.value_text(c.after, exact)}"
    return text + (f" ({numbers.count_text(c.after - c.before, signed=True)})" if exact else "")


def _grouped(changes: list[detect.Change]) -> list[list[detect.Change]]:
    """The change points by (commit, benchmark), in the order of each
    group's newest point: a time change shows once, cpu_time and real_time
    together, not as two rows."""
    groups: dict[tuple, list[detect.Change]] = {}
    for c in changes:
        groups.setdefault((c.commit, c.key.benchmark), []).append(c)
    return list(groups.values())


def _commit_cell(commit: str, subjects: dict) -> str:
    subject = subjects.get(commit)
    return (f"<code>{escape(commit[:12])}</code>"
            + (f'<br><span class="muted">{escape(subject[:80])}</span>' if subject else ""))


def _lines(cells: list[str]) -> str:
    """One line per metric of a row's group, aligned across its cells."""
    return "".join(f"<div>{cell}</div>" for cell in cells)


def _change_rows(changes: list[detect.Change], notes: dict, charted: set,
                 subjects: dict) -> list[str]:
    """One row per commit and benchmark, each metric of it a line."""
    rows = ["<table><tr><th>when</th><th>benchmark</th><th>commit</th><th>metric</th>"
            "<th>before → after</th><th>change</th><th>test</th><th>acknowledged</th></tr>"]
    for group in _grouped(changes):
        first = group[0]
        name = escape(first.key.benchmark)
        sid = next((c.key.id for c in group if c.key.id in charted), None)
        if sid is not None:
            name = f'<a href="#s{sid}">{name}</a>'
        notes_of = [notes.get((c.key.id, c.commit)) for c in group]
        moved = [_pct(c) + (" spike (returned)" if c.kind == "spike" else "") for c in group]
        tests = ["exact" if c.p_value is None else f"p {c.p_value:.2g}" for c in group]
        rows.append(
            f'<tr class="change"><td>{_day(first.time)}</td><td>{name}</td>'
            f"<td>{_commit_cell(first.commit, subjects)}</td>"
            f"<td>{_lines([escape(c.key.metric) for c in group])}</td>"
            f'<td class="n">{_lines([escape(_before_after(c)) for c in group])}</td>'
            f'<td class="n">{_lines(moved)}</td><td>{_lines(tests)}</td>'
            f"<td>{_lines([escape(n) if n is not None else 'no' for n in notes_of])}</td></tr>")
    return rows + ["</table>"]


def _chart_sections(refreshed: detect.Refreshed, sids: list[int], samples: dict,
                    subjects: dict) -> list[str]:
    out = []
    for sid in sids:
        key, state = refreshed.keys[sid], refreshed.states[sid]
        points = points_of(samples[sid], refreshed.runs)
        commits = [p.commit for p in points]
        title = f"{key.benchmark} {key.metric}"
        marks = ", ".join(f"<code>{escape(commits[c[0]][:12])}</code>"
                          + (" (spike)" if svg.is_spike(c) else "") for c in state.changes)
        out.append(f'<section id="s{sid}"><h3>{escape(title)}</h3>'
                   + svg.chart([p.values for p in points], state.changes, commits, title,
                               (_day(points[0].time), _day(points[-1].time)) if points
                               else ("", ""), subjects)
                   + f'<p class="muted">{"exact series" if state.exact else "noisy series"}; '
                   f"change points at {marks}; dots: repetitions, orange: segment means "
                   "(without the spikes), red: change points, purple rings: spikes; the x "
                   "axis names commits (hover for the subject). "
                   '<a href="#overview">overview</a></p></section>')
    return out


def _overview(refreshed: detect.Refreshed, sids: list[int], latest: dict,
              charted: set) -> list[str]:
    rows = ['<table><tr><th>benchmark</th><th>metric</th><th>commits</th><th>latest</th>'
            "<th>last change</th><th>trend</th></tr>"]
    for sid in sids:
        key, state = refreshed.keys[sid], refreshed.states[sid]
        c = latest.get(sid)
        name = escape(key.benchmark)
        if sid in charted:
            name = f'<a href="#s{sid}">{name}</a>'
        last = f"<code>{escape(c.commit[:12])}</code> {_pct(c)}" if c else "none"
        if not key.model.judged:
            last = f'<span class="muted">{escape(key.model.words)}</span>'
        value = (numbers.value_text(float(state.medians[-1]), state.exact)
                 if len(state.medians) else "-")
        rows.append(f"<tr><td>{name}</td><td>{escape(key.metric)}</td>"
                    f'<td class="n">{len(state.medians)}</td><td class="n">{value}</td>'
                    f"<td>{last}</td><td>{svg.sparkline(state.medians, state.changes)}</td></tr>")
    return rows + ["</table>"]


# How the machine page names each identity fact.
FACT_LABELS = {"project_build": "project build", "build_type": "Google Benchmark library build",
               "backend": "backend", "num_cpus": "CPUs", "cpu_model": "CPU",
               "kernel": "kernel", "guest_cpu": "guest CPU (ISA level)", "pmus": "PMUs",
               "valgrind": "valgrind", "cache_geometry": "simulated caches", "caches": "caches"}
NO_PROJECT_BUILD = ("not recorded: run with --benchmark_context=project_build=Release "
                    "(the CMake build type)")


def _facts_table(facts: dict) -> list[str]:
    """The identity's facts, the project's build type first: Google
    Benchmark's library_build_type is the library's, not the project's."""
    rows = [("project build", facts.get("project_build", NO_PROJECT_BUILD))]
    rows += [(FACT_LABELS.get(k, k), v) for k, v in facts.items() if k != "project_build"]
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v if isinstance(v, str) else json.dumps(v))}"
                    "</td></tr>" for k, v in rows)
    return [f'<table class="facts">{cells}</table>']


def machine_page(refreshed: detect.Refreshed, machine: tuple, changes: list[detect.Change],
                 notes: dict, samples_of, excluded: list[str],  # noqa: ANN001
                 subjects: dict | None = None) -> str:
    """One machine identity's page; samples_of(series ids) loads the
    repetitions of the charted series; subjects: SHA -> commit subject,
    where known (commits.py)."""
    subjects = subjects or {}
    machine_id, name, facts = machine
    sids = [sid for sid, k in refreshed.keys.items() if k.machine_id == machine_id]
    mine = [c for c in changes if c.key.machine_id == machine_id]
    latest: dict[int, detect.Change] = {}
    for c in mine:  # newest first: the first seen is the latest
        latest.setdefault(c.key.id, c)
    changed = list(latest)
    charted_list = changed[:MAX_CHARTS]
    charted = set(charted_list)
    open_ = [c for c in mine if (c.key.id, c.commit) not in notes]
    done = [c for c in mine if (c.key.id, c.commit) in notes]
    order = sorted(sids, key=lambda s: (-(latest[s].time if s in latest else -1e18),
                                        refreshed.keys[s].benchmark, refreshed.keys[s].metric))
    body = ['<p><a href="index.html">all machines</a></p>', f"<h1>{escape(name)}</h1>",
            *_facts_table(facts),
            f'<p>{len(sids)} series; <a href="#open">{len(open_)} open change points</a> '
            f"in {len(_grouped(open_))} rows (one per commit and benchmark); "
            f'<a href="#charts">{len(changed)} changed series</a>; '
            f'<a href="#overview">overview</a></p>',
            f'<h2 id="open">Open change points, newest first ({len(open_)})</h2>',
            *_change_rows(open_, notes, charted, subjects)]
    if done:
        body += [f"<h2>Acknowledged ({len(done)})</h2>",
                 *_change_rows(done, notes, charted, subjects)]
    body.append(f'<h2 id="charts">Changed series ({len(changed)})</h2>')
    if len(changed) > MAX_CHARTS:
        body.append(f"<p>The {MAX_CHARTS} with the newest changes are drawn; the other "
                    f"{len(changed) - MAX_CHARTS} are in the overview.</p>")
    body += _chart_sections(refreshed, charted_list, samples_of(charted_list), subjects)
    body += [f'<h2 id="overview">All series, latest change first ({len(sids)})</h2>',
             *_overview(refreshed, order, latest, charted)]
    if excluded:
        body += ["<h2>Excluded runs</h2><ul>", *excluded, "</ul>"]
    return _page(f"{name}: pmubench history", body)


def _excluded(conn) -> dict[int, list[str]]:  # noqa: ANN001
    r = schema.runs
    out: dict[int, list[str]] = {}
    for rid, machine, commit, reason in conn.execute(
            select(r.c.id, r.c.machine_id, r.c.commit_sha, r.c.excluded)
            .where(r.c.excluded.is_not(None))):
        out.setdefault(machine, []).append(
            f"<li>run {rid} at <code>{escape(commit[:12])}</code>: {escape(reason)}</li>")
    return out


def _subjects_note(refreshed: detect.Refreshed, subjects: dict, repo: str | None) -> str:
    known = len({r.commit for r in refreshed.runs.values()})
    if subjects:
        return (f'<p class="muted">Commit subjects: {len(subjects)} of {known} commits, from '
                f"the git checkout at <code>{escape(os.path.abspath(repo or '.'))}</code>.</p>")
    return ('<p class="muted">Commit subjects: not known (make the report inside the '
            "repository's checkout, or give <code>--repo DIR</code>).</p>")


def write_report(engine, branch: str, params: detect.Params, outdir: str,  # noqa: ANN001
                 repo: str | None = None) -> int:
    """Writes outdir/index.html and a page per machine; returns the number
    of machine pages. repo: the git checkout whose log names the commits
    (their subjects on hover; commits.py), or None. The pages go into a fresh directory swapped in whole
    (report.outdir, as reports/plot.py -o): never through a link another
    user planted, never over a directory that is not an earlier report."""
    staging = outdir_mod.stage(outdir)
    try:
        pages = _write_pages(engine, branch, params, staging, repo)
        outdir_mod.publish(staging, outdir)
    except BaseException:
        outdir_mod.discard(staging)
        raise
    return pages


def _write_pages(engine, branch: str, params: detect.Params, outdir: str,  # noqa: ANN001
                 repo: str | None) -> int:
    refreshed = detect.refresh(engine, branch, params)
    changes = refreshed.changes()
    subjects = commits.subjects([r.commit for r in refreshed.runs.values()], repo)
    m = schema.machines
    with engine.connect() as conn:
        notes = store.acked(conn)
        machines = [(i, n, json.loads(f)) for i, n, f in
                    conn.execute(select(m.c.id, m.c.name, m.c.facts).order_by(m.c.name))]
        excluded = _excluded(conn)

        def samples_of(sids: list[int]) -> dict:
            return load_samples(conn, sids, refreshed.runs)
        links = []
        for machine in machines:
            page = f"machine-{machine[0]}.html"
            atomic.write_atomically(os.path.join(outdir, page), machine_page(
                refreshed, machine, changes, notes, samples_of, excluded.get(machine[0], []),
                subjects))
            count = sum(1 for c in changes if c.key.machine_id == machine[0]
                        and (c.key.id, c.commit) not in notes)
            links.append(f'<li><a href="{page}">{escape(machine[1])}</a>: '
                         f"{count} open change points</li>")
    atomic.write_atomically(os.path.join(outdir, "index.html"), _page(
        "pmubench history", [f"<h1>pmubench history: {escape(branch)}</h1>",
                             f"<p>{len(refreshed.keys)} series, {len(refreshed.runs)} runs.</p>",
                             "<ul>", *links, "</ul>",
                             _subjects_note(refreshed, subjects, repo)]))
    return len(machines)
