"""The trend report: DIR/index.html lists the machine identities, and each
has a page: its open change points newest first, a chart per changed
series (newest change first, at most MAX_CHARTS of them; the rest are in
the overview), and every series in a compact overview table with
sparklines, sorted by its latest change. Self-contained HTML with inline
SVG; every file is written whole (pmubench.base.atomic)."""

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
from pmubench.history import detect, schema, store, svg
from pmubench.history.series import load_samples, points_of

MAX_CHARTS = 150

STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.worse{color:#b00}.better{color:#060}
section{margin:1em 0 2em}h3{font-size:15px;margin:.3em 0}code{font-size:12px}.muted{color:#777}"""


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


def _change_rows(changes: list[detect.Change], notes: dict, charted: set) -> list[str]:
    rows = ["<table><tr><th>when</th><th>benchmark</th><th>metric</th><th>commit</th>"
            "<th>before → after</th><th>change</th><th>test</th><th>acknowledged</th></tr>"]
    for c in changes:
        note = notes.get((c.key.id, c.commit))
        name = escape(c.key.benchmark)
        if c.key.id in charted:
            name = f'<a href="#s{c.key.id}">{name}</a>'
        p = "exact" if c.p_value is None else f"p {c.p_value:.2g}"
        rows.append(
            f"<tr><td>{_day(c.time)}</td><td>{name}</td>"
            f"<td>{escape(c.key.metric)}</td><td><code>{escape(c.commit[:12])}</code></td>"
            f'<td class="n">{escape(_before_after(c))}</td><td class="n">{_pct(c)}</td>'
            f"<td>{p}</td><td>{escape(note) if note is not None else 'no'}</td></tr>")
    return rows + ["</table>"]


def _chart_sections(refreshed: detect.Refreshed, sids: list[int], samples: dict) -> list[str]:
    out = []
    for sid in sids:
        key, state = refreshed.keys[sid], refreshed.states[sid]
        points = points_of(samples[sid], refreshed.runs)
        commits = [p.commit for p in points]
        title = f"{key.benchmark} {key.metric}"
        marks = ", ".join(f"<code>{escape(commits[c[0]][:12])}</code>" for c in state.changes)
        out.append(f'<section id="s{sid}"><h3>{escape(title)}</h3>'
                   + svg.chart([p.values for p in points], state.changes, commits, title,
                               (_day(points[0].time), _day(points[-1].time)) if points else ("", ""))
                   + f'<p class="muted">{"exact series" if state.exact else "noisy series"}; '
                   f"change points at {marks}; dots: repetitions, orange: segment means, "
                   f'red: change points. <a href="#overview">overview</a></p></section>')
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
                 notes: dict, samples_of, excluded: list[str]) -> str:  # noqa: ANN001
    """One machine identity's page; samples_of(series ids) loads the
    repetitions of the charted series."""
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
            f'<p>{len(sids)} series; <a href="#open">{len(open_)} open change points</a>; '
            f'<a href="#charts">{len(changed)} changed series</a>; '
            f'<a href="#overview">overview</a></p>',
            f'<h2 id="open">Open change points, newest first ({len(open_)})</h2>',
            *_change_rows(open_, notes, charted)]
    if done:
        body += [f"<h2>Acknowledged ({len(done)})</h2>", *_change_rows(done, notes, charted)]
    body.append(f'<h2 id="charts">Changed series ({len(changed)})</h2>')
    if len(changed) > MAX_CHARTS:
        body.append(f"<p>The {MAX_CHARTS} with the newest changes are drawn; the other "
                    f"{len(changed) - MAX_CHARTS} are in the overview.</p>")
    body += _chart_sections(refreshed, charted_list, samples_of(charted_list))
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


def write_report(engine, branch: str, params: detect.Params, outdir: str) -> int:  # noqa: ANN001
    """Writes outdir/index.html and a page per machine; returns the number
    of machine pages. The pages go into a fresh directory swapped in whole
    (report.outdir, as reports/plot.py -o): never through a link another
    user planted, never over a directory that is not an earlier report."""
    staging = outdir_mod.stage(outdir)
    try:
        pages = _write_pages(engine, branch, params, staging)
        outdir_mod.publish(staging, outdir)
    except BaseException:
        outdir_mod.discard(staging)
        raise
    return pages


def _write_pages(engine, branch: str, params: detect.Params, outdir: str) -> int:  # noqa: ANN001
    refreshed = detect.refresh(engine, branch, params)
    changes = refreshed.changes()
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
                refreshed, machine, changes, notes, samples_of, excluded.get(machine[0], [])))
            count = sum(1 for c in changes if c.key.machine_id == machine[0]
                        and (c.key.id, c.commit) not in notes)
            links.append(f'<li><a href="{page}">{escape(machine[1])}</a>: '
                         f"{count} open change points</li>")
    atomic.write_atomically(os.path.join(outdir, "index.html"), _page(
        "pmubench history", [f"<h1>pmubench history: {escape(branch)}</h1>",
                             f"<p>{len(refreshed.keys)} series, {len(refreshed.runs)} runs.</p>",
                             "<ul>", *links, "</ul>"]))
    return len(machines)
