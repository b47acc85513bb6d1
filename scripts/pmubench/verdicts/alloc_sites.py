"""Where a changed allocation count comes from: the call sites that
allocate more or fewer times per iteration, base -> head.

A run written with --pmubench_profile=EVENT carries
"pmubench_profile_alloc_sites_per_iteration" where heap allocations are counted
(docs/allocations.md): for each call site of the profiled loop's
allocations, the function and source line that called the allocator
(malloc's caller; for a new, operator new's caller), "above" it the
function and line that called that one where the caller is the standard
library's (std::vector<int>::_M_realloc_insert called from Grow()), and
the allocations and bytes per iteration there. The counts are exact, as
the row's are: every allocation of the loop is counted at its site (under
--pmubench_simulate, the same slope between two segments as the row;
natively, the profiling pass's batch over its iterations). What is
matched across the two sides is the place, not the address.

A site is matched by function, file name (not its directory: the sides
are often built in different ones), line, and the same of the frame above.
A commit that moves code shifts line numbers: a site of one side that has
no match is paired with one of the other side at the same function, file
and frame above with the same counts (it moved, it did not change).
"""

from __future__ import annotations

import itertools
import math
import operator
from dataclasses import dataclass

from pmubench.runs import matching
from pmubench.verdicts import attribution, metrics, symbols
from pmubench.verdicts.rows import IMPROVEMENT, REGRESSION, Row

_METRIC = operator.attrgetter("metric")

FIELD = "pmubench_profile_alloc_sites_per_iteration"
# The rows whose change the sites explain, and which count each explains.
COUNT = metrics.ALLOC_COUNT
METRICS = {COUNT: "allocs", metrics.ALLOC_BYTES: "bytes"}


@dataclass
class Site:
    """One call site: counts per iteration on each side (None: none there)."""
    name: str                  # "grow.cc:12 Grow()" or "... called from ..."
    base: float | None
    head: float | None
    bytes_base: float | None
    bytes_head: float | None

    @property
    def delta(self) -> float:
        return (self.head or 0.0) - (self.base or 0.0)

    @property
    def bytes_delta(self) -> float:
        return (self.bytes_head or 0.0) - (self.bytes_base or 0.0)

    @property
    def status(self) -> str:
        return attribution.change_status(self.base, self.head)


@dataclass
class AllocSites:
    benchmark: str
    metric: str                # allocs_per_iter or alloc_bytes_per_iter
    row_delta: float           # contender center - baseline center
    sites: list[Site]          # every site whose count changed, largest first

    @property
    def bytes_delta(self) -> float:
        return math.fsum(s.bytes_delta for s in self.sites)


def attribute(rows: list[Row], pairing: matching.Pairing,
              baseline_path: str, contender_path: str
              ) -> tuple[list[AllocSites], list[str]]:
    """The sites of every changed allocation row, and notes on the rows
    that changed but whose sites one side lacks."""
    runs = {b.name: (b, c) for b, c in pairing.common}
    out: list[AllocSites] = []
    notes: list[str] = []
    # The allocation rows found in C: a suite has hundreds of thousands.
    for row in itertools.compress(rows, map(METRICS.__contains__, map(_METRIC, rows))):
        if row.benchmark not in runs:
            continue
        if row.contender.center == row.baseline.center and row.verdict not in (
                REGRESSION, IMPROVEMENT):
            continue
        base, head = (sites_of(r) for r in runs[row.benchmark])
        if base is None or head is None:
            lacking = baseline_path if base is None else contender_path
            notes.append(f"{row.benchmark} {row.metric}: {lacking} has no "
                         "allocation sites: run both sides with "
                         "--pmubench_profile=EVENT (docs/allocations.md)")
            continue
        out.append(AllocSites(row.benchmark, row.metric,
                              row.contender.center - row.baseline.center,
                              _moved(base, head, METRICS[row.metric])))
    # Where the count changed, its sites show the bytes too: the bytes row
    # has sites of its own only where the count stayed (larger blocks).
    counted = {a.benchmark for a in out if a.metric == COUNT}
    return [a for a in out if a.metric == COUNT
            or a.benchmark not in counted], notes


def sites_of(runs: matching.BenchmarkRuns) -> dict | None:
    """{key: (name, allocs, bytes)} of the last iteration run that carries
    sites, or None."""
    for run in reversed(runs.iterations):
        raw = run.raw or {}
        if isinstance(raw.get(FIELD), list):
            out: dict = {}
            for e in raw[FIELD]:
                key, name = _key(e)
                _, allocs, size = out.get(key, (name, 0.0, 0.0))
                out[key] = (name, allocs + float(e.get("allocs", 0) or 0),
                            size + float(e.get("bytes", 0) or 0))
            return out
    return None


def _place(e: dict) -> tuple[tuple, str]:
    symbol = str(e.get("symbol", "")) or "?"
    file = "/".join(str(e.get("file", "")).split("/")[-2:]) or "?"
    line = int(e.get("line", 0) or 0)
    return ((symbol, file.split("/")[-1], line),
            f"{file}:{line} {symbols.shown(symbol)}")


def _key(e: dict) -> tuple[tuple, str]:
    key, name = _place(e)
    above = e.get("above")
    if isinstance(above, dict):
        above_key, above_name = _place(above)
        return (key, above_key), f"{name} called from {above_name}"
    return (key, None), name


def _moved(base: dict, head: dict, by: str) -> list[Site]:
    """Every site whose count differs, the largest change of `by` first."""
    base, head = _pair_moved_lines(dict(base), dict(head))
    out = []
    for key in dict.fromkeys(list(base) + list(head)):
        b, h = base.get(key), head.get(key)
        name = (h or b)[0]
        site = Site(name, b and b[1], h and h[1], b and b[2], h and h[2])
        if site.delta or site.bytes_delta or b is None or h is None:
            out.append(site)
    measure = (lambda s: s.delta) if by == "allocs" else (lambda s: s.bytes_delta)
    out.sort(key=lambda s: (-abs(measure(s)), s.name))
    return out


def _pair_moved_lines(base: dict, head: dict) -> tuple[dict, dict]:
    """Unmatched sites at the same function, file and frame above with the
    same counts are one site whose line moved: both are dropped."""
    def loose(key):
        (place, above) = key
        return place[:2], above and above[:2]
    for b_key in [k for k in base if k not in head]:
        for h_key in [k for k in head if k not in base]:
            if loose(b_key) == loose(h_key) and all(
                    math.isclose(x, y) for x, y in zip(base[b_key][1:], head[h_key][1:])):
                del base[b_key], head[h_key]
                break
    return base, head
