"""Why a row changed: the functions and source lines whose counts per
iteration moved between the two files' profiles.

A run carries a profile when it was written with --pmubench_profile=EVENT
(docs/profiling.md). Two kinds:

- exact (under --pmubench_simulate): "pmubench_profile_per_iteration" and
  "pmubench_profile_lines_per_iteration" hold the self cost of every
  function and line over the very steps the row counts (the longer
  segment's cost less the shorter's, over the iteration difference), so
  per function base -> head and the deltas add up to the row's change; the
  "elsewhere" remainder is 0 up to rounding unless the row's center is not
  the profiled run's count (repetitions that differ).
- estimated (a PMU's sampling profile): each function's share of the
  samples times the row's per-iteration count, said "estimated" with the
  sample counts; the top list is all the profile holds, so "elsewhere"
  takes the rest.

Names are matched after demangling (a "_Z" name through c++filt when it is
on PATH) with GCC's clone suffixes (".isra.0", ".constprop.1", ".cold",
".part.2") and callgrind's recursion marks ("'2") taken off; lines by
function, the file's name (not its directory: base and head are often
built in different ones) and the line number. What one
side lacks shows as added or removed.

A commit that moves code shifts the numbers of lines it did not change.
Where a function's lines in a file have other numbers in the head than in
the base, they are matched by content and order (lines.py): a moved
function's lines match their old selves and show no change; a changed
line matches the line it was. Line shares are of the larger of the row's
change and the lines' moved counts (the sum of |delta|), so together they
never exceed 100% of the change they explain.

Tables show a function's name short (symbols.shown: template arguments as
"<…>", glibc's variants said for what they are); the JSON has it whole.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from pmubench.runs import matching
from pmubench.verdicts import lines as line_match
from pmubench.verdicts import symbols
from pmubench.verdicts.rows import IMPROVEMENT, REGRESSION, Row

# Entries shown per row (functions, and lines); the rest is "elsewhere".
TOP = 5
EXACT = "exact"
ESTIMATED = "estimated"

_CLONE = re.compile(r"(\.(isra|constprop|part|cold|lto_priv|localalias)(\.\d+)?)+$")
_RECURSION = re.compile(r"'\d+$")
_CLONE_NOTE = re.compile(r"( \[clone [^\]]*\])+$")


def change_status(base: float | None, head: float | None) -> str:
    """added, removed or changed: what a line present on one or both
    sides (a function, an allocation site) did between them."""
    if base is None:
        return "added"
    return "removed" if head is None else "changed"


@dataclass
class Profile:
    """One side's profile of one benchmark, per iteration."""
    event: str                       # "callgrind/instructions/", "cpu-clock@100000"
    kind: str                        # EXACT or ESTIMATED
    functions: dict[str, float]      # matched name -> count per iteration
    lines: dict[tuple[str, str, int], float]   # (name, file tail, line) -> count
    display: dict = field(default_factory=dict)   # key -> the name as written
    samples: int = 0                 # the sampling profile's samples
    total: float | None = None       # exact: the sum of every entry


@dataclass
class Moved:
    """One function or line: its count per iteration on each side (None
    where that side has none: added or removed) and the change."""
    name: str
    base: float | None
    head: float | None
    delta: float
    share: float                     # delta / the row's change (nan if 0)
    shown: str = ""                  # the name as a table shows it

    @property
    def status(self) -> str:
        return change_status(self.base, self.head)


@dataclass
class Attribution:
    benchmark: str
    metric: str
    kind: str                        # EXACT or ESTIMATED
    event: str
    row_delta: float                 # contender center - baseline center
    functions: list[Moved]
    lines: list[Moved]
    elsewhere: float                 # row_delta - the shown functions' deltas
    samples: tuple[int, int] = (0, 0)   # (base, head), estimated only
    # row_delta less every function's delta: 0 (up to rounding) for exact
    # profiles of the rows' own runs; what the top lists leave out when
    # estimated.
    residual: float = 0.0


def attribute(rows: list[Row], pairing: matching.Pairing,
              baseline_path: str, contender_path: str
              ) -> tuple[list[Attribution], list[str]]:
    """The attribution of every changed row whose metric both sides
    profiled, and notes on rows that changed but cannot be attributed."""
    runs = {b.name: (b, c) for b, c in pairing.common}
    out: list[Attribution] = []
    notes: list[str] = []
    demangle = _Demangler()
    for row in filter(_changed, rows):
        if row.benchmark not in runs:
            continue
        b_runs, c_runs = runs[row.benchmark]
        base, head = profile_of(b_runs, demangle), profile_of(c_runs, demangle)
        if base is None and head is None:
            continue
        if base is None or head is None:
            lacking = baseline_path if base is None else contender_path
            notes.append(f"{row.benchmark}: only one file has a profile "
                         f"({lacking} has none): no attribution; the verdict "
                         "stands. Profile both sides with "
                         "--pmubench_profile=EVENT (docs/profiling.md)")
            continue
        if base.event != head.event:
            notes.append(f"{row.benchmark}: the profiles are of different "
                         f"events ({base.event} in {baseline_path}, "
                         f"{head.event} in {contender_path}): not attributed")
            continue
        if not _profiles_metric(base, row.metric):
            continue
        out.append(_attribution(row, base, head))
    # The gated changes first: a reader (and a comment short of room)
    # takes them before the rows under their threshold.
    if out:    # (a look at every row: a suite has hundreds of thousands)
        gated = {(r.benchmark, r.metric) for r in rows
                 if r.verdict in (REGRESSION, IMPROVEMENT)}
        out.sort(key=lambda a: (a.benchmark, a.metric) not in gated)
    return out, notes


def _changed(row: Row) -> bool:
    return (row.verdict in (REGRESSION, IMPROVEMENT)
            or (row.threshold.simulated and row.contender.center != row.baseline.center))


def _profiles_metric(p: Profile, metric: str) -> bool:
    """The row's metric is the profile's event ("instructions" for
    "instructions@100000"; the callgrind field itself under simulate)."""
    return metric == p.event or metric == p.event.split("@", 1)[0]


def profile_of(runs: matching.BenchmarkRuns, demangle=None) -> Profile | None:
    """The profile of the benchmark's last profiled iteration run, or
    None."""
    demangle = demangle or _Demangler()
    for run in reversed(runs.iterations):
        raw = run.raw or {}
        if "pmubench_profile_per_iteration" in raw:
            return _exact(raw, demangle)
        if "pmubench_profile_event" in raw:
            center = run.metrics.get(str(raw["pmubench_profile_event"]).split("@", 1)[0])
            return _estimated(raw, center, demangle)
    return None


def _exact(raw: dict, demangle) -> Profile:
    iterations = raw.get("pmubench_profile_per_iteration_iterations") or 1
    p = Profile(str(raw.get("pmubench_profile_event", "")), EXACT, {}, {})
    for e in raw.get("pmubench_profile_per_iteration") or []:
        key = demangle(str(e.get("symbol", "")))
        p.display.setdefault(key, str(e.get("symbol", "")))
        p.functions[key] = p.functions.get(key, 0.0) + _per_iteration(e, iterations)
    for e in raw.get("pmubench_profile_lines_per_iteration") or []:
        key = (demangle(str(e.get("symbol", ""))), _file_tail(str(e.get("file", ""))),
               int(e.get("line", 0) or 0))
        p.display.setdefault(key, _line_name(e))
        p.lines[key] = p.lines.get(key, 0.0) + _per_iteration(e, iterations)
    total = raw.get("pmubench_profile_per_iteration_segment_total")
    p.total = (total / iterations if isinstance(total, (int, float))
               else math.fsum(p.functions.values()))
    return p


def _estimated(raw: dict, center: float | None, demangle) -> Profile:
    p = Profile(str(raw.get("pmubench_profile_event", "")), ESTIMATED, {}, {},
                samples=int(raw.get("pmubench_profile_samples", 0) or 0))
    scale = center if center is not None else 0.0
    for e in raw.get("pmubench_profile") or []:
        key = demangle(str(e.get("symbol", "")))
        p.display.setdefault(key, str(e.get("symbol", "")))
        p.functions[key] = p.functions.get(key, 0.0) + float(e.get("share", 0)) * scale
    for e in raw.get("pmubench_profile_lines") or []:
        key = (demangle(str(e.get("symbol", ""))), _file_tail(str(e.get("file", ""))),
               int(e.get("line", 0) or 0))
        p.display.setdefault(key, _line_name(e))
        p.lines[key] = p.lines.get(key, 0.0) + float(e.get("share", 0)) * scale
    p.total = scale
    return p


def _per_iteration(entry: dict, iterations: float) -> float:
    """The entry's exact segment delta over the divisor when written."""
    delta = entry.get("segment_delta")
    if isinstance(delta, (int, float)) and iterations:
        return delta / iterations
    return float(entry.get("count", 0))


def _file_tail(path: str, parts: int = 1) -> str:
    """The last path components (the file's name to match by: base and
    head built in different directories still match)."""
    return "/".join(path.split("/")[-parts:])


def _line_name(entry: dict) -> str:
    file = str(entry.get("file", "")) or "?"
    return f"{_file_tail(file, 2)}:{entry.get('line', 0)} {entry.get('symbol', '')}"


def _line_shown(name: str) -> str:
    """'dir/f.cc:12 Foo<…>::bar()' for 'dir/f.cc:12 Foo<int, ...>::bar()'."""
    where, _, symbol = name.partition(" ")
    return f"{where} {symbols.shown(symbol)}"


def _attribution(row: Row, base: Profile, head: Profile) -> Attribution:
    row_delta = row.contender.center - row.baseline.center
    display = {**base.display, **head.display}
    functions = _moved(base.functions, head.functions, row_delta, display,
                       symbols.shown)
    head_lines, moved_names = line_match.rekey(base.lines, head.lines, head.display)
    display.update(moved_names)
    lines = _moved(base.lines, head_lines, row_delta, display, _line_shown)
    gross = math.fsum(abs(m.delta) for m in lines)
    if gross > abs(row_delta) and row_delta:
        # Deltas of both signs: each line's share of all the lines moved.
        for m in lines:
            m.share = m.delta / math.copysign(gross, row_delta)
    shown = functions[:TOP]
    elsewhere = _rounded(row_delta - math.fsum(m.delta for m in shown), row_delta)
    residual = _rounded(row_delta - math.fsum(m.delta for m in functions), row_delta)
    return Attribution(row.benchmark, row.metric, base.kind, base.event, row_delta,
                       shown, lines[:TOP], elsewhere, (base.samples, head.samples),
                       residual)


def _rounded(x: float, scale: float) -> float:
    """0 for a remainder that is rounding only (counts per iteration are
    quotients of integers)."""
    return 0.0 if abs(x) < 1e-9 * max(1.0, abs(scale)) else x


def _moved(base: dict, head: dict, row_delta: float, display: dict,
           shorten) -> list[Moved]:
    """Every key whose count differs, the largest change first (then by
    name, so the order is stable); shorten(name) is the name a table
    shows."""
    out = []
    for key in dict.fromkeys(list(base) + list(head)):
        b, h = base.get(key), head.get(key)
        delta = (h or 0.0) - (b or 0.0)
        if abs(delta) < 1e-9 * max(1.0, abs(b or 0.0), abs(h or 0.0)):
            continue
        share = delta / row_delta if row_delta else math.nan
        name = display.get(key, str(key))
        out.append(Moved(name, b, h, delta, share, shorten(name)))
    out.sort(key=lambda m: (-abs(m.delta), m.name))
    return out


class _Demangler:
    """Names as matched: demangled (c++filt, once per name), clone and
    recursion suffixes off."""

    def __init__(self):
        self._cache: dict[str, str] = {}
        self._cxxfilt = shutil.which("c++filt")

    def __call__(self, name: str) -> str:
        if name not in self._cache:
            self._cache[name] = self._normal(name)
        return self._cache[name]

    def _normal(self, name: str) -> str:
        text = name
        if text.startswith("_Z") and self._cxxfilt:
            try:
                text = subprocess.run([self._cxxfilt, text], capture_output=True,
                                      text=True, timeout=10).stdout.strip() or name
            except (OSError, subprocess.SubprocessError):
                text = name
        text = _CLONE_NOTE.sub("", _RECURSION.sub("", text))
        return _CLONE.sub("", text)
