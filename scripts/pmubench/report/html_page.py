"""Lays a Report out as one self-contained index.html.

No scripts, fonts or stylesheets from the network: the style is inline and
the PNGs are referenced by relative path (they sit beside index.html), so the
directory can be copied or served as it is.
"""

from __future__ import annotations

import html
from typing import Any

from pmubench.report import model as report_mod
from pmubench.report import series

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1180px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.6em; }
figure { margin: 1em 0 1.6em; } figure img { max-width: 100%; height: auto;
         border: 1px solid #ddd; }
figcaption { color: #444; font-size: 0.92em; margin-top: .3em; }
figcaption b { color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right;
         vertical-align: top; }
th { background: #f2f2f2; } td:first-child, th:first-child { text-align: left; }
table.context td { text-align: left; white-space: pre-wrap; }
.scroll { overflow-x: auto; } .failed { color: #b00020; }
.note { color: #555; font-size: 0.9em; }
.verdict { font-weight: 600; } object.flame { width: 100%; } .warning { color: #8a5300; }
table.context { table-layout: fixed; width: 100%; }
table.context th { width: 14em; overflow-wrap: anywhere; }
table.context td { overflow-wrap: anywhere; }
nav ul { columns: 3; font-size: 0.9em; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _anchor(*parts: str) -> str:
    return "-".join(report_mod.slug(p) for p in parts)


def _caches(context: dict[str, Any]) -> str:
    parts = []
    for c in context.get("caches", []) or []:
        if isinstance(c, dict) and isinstance(c.get("size"), (int, float)):
            kind = {"Data": "d", "Instruction": "i"}.get(c.get("type"), "")
            shared = c.get("num_sharing")
            parts.append(f"L{c.get('level')}{kind} {series.format_bytes(c['size'])}"
                         + (f" (shared by {shared})" if shared and shared > 1 else ""))
    return ", ".join(parts)


# pmubench's context keys (ContextPairs in framework/runner/output/describe.h writes
# them), in reading order.
_PMUBENCH_LABELS = {
    "pmubench_version": "pmubench version",
    "pmubench_notice": "notice",
    "pmubench_pmus": "PMUs",
    "pmubench_events": "events (PMU, type/config, read method)",
    "pmubench_read_overhead": "read overhead subtracted per batch",
    "pmubench_pinned": "pinned group",
    "pmubench_exclude_kernel": "kernel excluded",
}
_PMUBENCH_ORDER = list(_PMUBENCH_LABELS)


def context_rows(context: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows: machine first, then every pmubench_* key as written."""
    rows = []
    machine = [("date", "date"), ("host_name", "host"), ("executable", "executable"),
               ("num_cpus", "CPUs"), ("mhz_per_cpu", "MHz per CPU"),
               ("cpu_scaling_enabled", "CPU scaling enabled"),
               ("library_build_type", "Google Benchmark library build")]
    for key, label in machine:
        if key in context:
            rows.append((label, str(context[key])))
    if context.get("caches"):
        rows.append(("caches", _caches(context)))
    if "load_avg" in context:
        rows.append(("load average", ", ".join(str(v) for v in context["load_avg"])))
    pmu_keys = sorted((k for k in context if k.startswith("pmubench_")),
                      key=lambda k: (_PMUBENCH_ORDER.index(k) if k in _PMUBENCH_ORDER
                                     else len(_PMUBENCH_ORDER), k))
    for key in pmu_keys:
        value = str(context[key])
        if key == "pmubench_events":
            value = value.replace("; ", ";\n")  # one event per line
        elif key == "pmubench_read_overhead":
            value = series.with_units(value)  # 'task-clock=861 ns', as the console
        rows.append((_PMUBENCH_LABELS.get(key, key), value))
    if not pmu_keys:
        rows.append(("pmubench", "no pmubench_* keys: a plain Google Benchmark run "
                                 "(no counter context: PMU, events, read method unknown)"))
    return rows


def _table(table: report_mod.Table, link_last: bool = False) -> str:
    out = ['<div class="scroll"><table><tr>']
    out += [f"<th>{_e(h)}</th>" for h in table.headers]
    out.append("</tr>")
    for row in table.rows:
        failed = len(row) > 2 and row[2].startswith("failed:")
        cls = ' class="failed"' if failed else ""
        out.append(f"<tr{cls}>" + "".join(
            _cell(c, link_last and i == len(row) - 1) for i, c in enumerate(row)) + "</tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _with_flame_links(v: report_mod.Verdicts) -> report_mod.Table:
    """The verdict table with a column naming each row's differential
    flame graph (made a link by _table(..., link_last=True))."""
    if not v.flame_of:
        return v.table
    return report_mod.Table(v.table.headers + ["flame graph"],
                            [row + [v.flame_of.get(row[0], "")] for row in v.table.rows])


def _diff_flames(v: report_mod.Verdicts) -> list[str]:
    """The contender's differential flame graphs, and why a changed
    benchmark has none."""
    out = [f'<p class="note">{_e(n)}</p>' for n in v.flame_notes]
    for fig in v.diff_flames:
        out.append(f'<figure id="{_anchor(fig.filename)}"><object type="image/svg+xml" '
                   f'data="{_e(fig.filename)}" class="flame">{_e(fig.title)}</object>'
                   f'<figcaption><b><a href="{_e(fig.filename)}">{_e(fig.title)}</a>.</b> '
                   f"{_e(fig.caption)}</figcaption></figure>")
    return out


def _cell(text: str, link: bool = False) -> str:
    """A cell; with link, its (non-empty) text a link to that file."""
    if link and text:
        return f'<td><a href="{_e(text)}">{_e(text)}</a></td>'
    return f"<td>{_e(text)}</td>"


def _figure(fig: report_mod.Figure) -> str:
    return (f'<figure><img src="{_e(fig.filename)}" alt="{_e(fig.title)}" loading="lazy">'
            f"<figcaption><b>{_e(fig.title)}.</b> {_e(fig.caption)}</figcaption></figure>")


def render_page(rep: report_mod.Report) -> str:
    """The whole index.html for a Report."""
    labels = [f.label for f in rep.files]
    title = "pmubench report: " + ", ".join(labels)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title)}</title>", f"<style>{_STYLE}</style></head><body>",
           f"<h1>{_e(title)}</h1>", "<nav><ul>"]
    if rep.comparisons:
        out.append('<li><a href="#comparison">comparison</a></li>')
    if rep.profiles or rep.flames:
        out.append('<li><a href="#profiles">profiles</a></li>')
    for fs in rep.files:
        for sec in fs.sections:
            out.append(f'<li><a href="#{_anchor(fs.label, sec.key or sec.name)}">'
                       f"{_e(sec.name)}, {_e(fs.label)}</a></li>")
    out.append("</ul></nav>")
    if rep.comparisons:
        out.append(f'<h2 id="comparison">Comparison: baseline {_e(labels[0])} vs '
                   f"{_e(', '.join(labels[1:]))}</h2>")
        for v in rep.verdicts:
            out.append(f"<h3>scripts/compare.py: {_e(v.contender)} against "
                       f"{_e(labels[0])}</h3>")
            out.append(f'<p class="verdict">{_e(v.result)}</p>')
            out += [f'<p class="warning">WARNING: {_e(w)}</p>' for w in v.warnings]
            if v.table.rows:
                out.append(_table(_with_flame_links(v), bool(v.flame_of)))
            out += _diff_flames(v)
        out += [_figure(f) for f in rep.comparisons]
    if rep.profiles or rep.flames:
        out.append('<h2 id="profiles">Profiles</h2>')
        out += [_figure(f) for f in rep.profiles]
        for fig in rep.flames:
            # <object>, not <img>: the boxes' tooltips work only there.
            out.append(f'<figure><object type="image/svg+xml" data="{_e(fig.filename)}" '
                       f'class="flame">{_e(fig.title)}</object><figcaption>'
                       f"<b>{_e(fig.title)}.</b> {_e(fig.caption)}</figcaption></figure>")
    for fs in rep.files:
        out.append(f'<h2 id="{_anchor(fs.label)}">Run {_e(fs.label)}</h2>')
        out.append(f"<p>File: <code>{_e(fs.path)}</code></p>")
        if (note := series.backend_note(fs.context)) is not None:
            out.append(f'<p class="warning">{_e(note)}</p>')
        out.append('<table class="context">')
        out += [f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in context_rows(fs.context)]
        out.append("</table>")
        for sec in fs.sections:
            out.append(f'<h3 id="{_anchor(fs.label, sec.key or sec.name)}">{_e(sec.name)}</h3>')
            out += [f'<p class="note">{_e(note)}</p>' for note in sec.notes]
            out += [_figure(f) for f in sec.figures]
            out.append(_table(sec.table))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
