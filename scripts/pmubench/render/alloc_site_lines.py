"""Where each changed allocation row's allocations come from
(verdicts/alloc_sites.py), as compare's text, markdown and JSON show it,
beside the instruction attribution: per row, each call site whose count
changed, allocations and bytes per iteration base -> head."""

from __future__ import annotations

from pmubench.render import attribution_lines
from pmubench.render import formatting as fmt
from pmubench.verdicts import alloc_sites

_HEADER = ("call site", "base", "head", "delta", "bytes")


def headline(a: alloc_sites.AllocSites) -> str:
    """'BM_X allocs_per_iter: +1 per iteration (+17 bytes), at f.cc:12 F()
    (added)'."""
    signed = attribution_lines.signed
    first = a.sites[0] if a.sites else None
    where = f", at {first.name}{_mark(first)}" if first is not None else ""
    size = (f" ({signed(a.bytes_delta)} bytes)"
            if a.metric == alloc_sites.COUNT and a.bytes_delta else "")
    return (f"{a.benchmark} {a.metric}: {signed(a.row_delta)} per "
            f"iteration{size}{where}")


def _mark(s: alloc_sites.Site) -> str:
    return "" if s.status == "changed" else f" ({s.status})"


def _cells(a: alloc_sites.AllocSites) -> list[tuple[str, ...]]:
    count, signed = attribution_lines.count, attribution_lines.signed
    return [(f"{s.name}{_mark(s)}", count(s.base), count(s.head), signed(s.delta),
             signed(s.bytes_delta)) for s in a.sites]


def text_lines(sites: list[alloc_sites.AllocSites], notes: list[str]) -> list[str]:
    """The text report's section ([] when there is none)."""
    if not sites and not notes:
        return []
    out = ["Where the allocations changed (per iteration, exact; call sites "
           "of the allocator):"]
    for a in sites:
        out.append(f"  {headline(a)}")
        out += attribution_lines.aligned([_HEADER] + _cells(a))
    out += [f"  Note: {n}" for n in notes]
    return out + [""]


def markdown_section(a: alloc_sites.AllocSites) -> list[str]:
    """One row's sites as a collapsed <details>."""
    out = [f"<details><summary>{fmt.md_text(headline(a))} "
           "(allocation sites, exact)</summary>", "",
           "| Call site | Base | Head | Delta | Bytes |", "|:--|--:|--:|--:|--:|"]
    out += ["| " + " | ".join(fmt.md_text(v) for v in row) + " |"
            for row in _cells(a)]
    return out + ["", "</details>", ""]


def json_object(a: alloc_sites.AllocSites) -> dict:
    return {"benchmark": a.benchmark, "metric": a.metric, "row_delta": a.row_delta,
            "sites": [{"name": s.name, "base": s.base, "head": s.head,
                       "delta": s.delta, "bytes_base": s.bytes_base,
                       "bytes_head": s.bytes_head, "bytes_delta": s.bytes_delta,
                       "status": s.status} for s in a.sites]}
