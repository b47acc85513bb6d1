"""Machine-readable report. Strict JSON: infinities and NaN become null (with
"change_infinite" saying which way), so any JSON parser reads it.

{"schema": "pmubench-compare/1", "baseline": PATH, "contender": PATH,
 "alpha": 0.05, "confidence": "95%", "exit_code": 0|1|4,
 "result": "pass"|"fail"|"inconclusive",
 "reason": why nothing could catch a slowdown (with "inconclusive"; "result"
           stays "inconclusive" under --allow-inconclusive, exit_code 0) | null,
 "machine_differences": ["num_cpus: 2 in the baseline, 8 in the contender", ...],
 "backend": {"name": "perf_event"|"callgrind", "valgrind": str|null,
             "cache_geometry": str|null, "simulated": bool,
             "description": str ("" for perf_event)},
 "regressed_benchmarks": [names],
 "counts": {"regression": N, "improvement": N, "no significant change": N,
            "not gated": N},
 "rows": [{"benchmark", "metric", "unit", "higher_is_better",
           "baseline": {"center", "n", "source", "values"}, "contender": {...},
           "change", "change_pct", "change_infinite", "p_value",
           "ci": {"low", "high", "level"} | null, "mode",
           "threshold_pct" (null: not gated), "floor", "metric_class",
           "threshold_source", "deterministic", "simulated",
           "changed_beyond_threshold", "verdict",
           "work_changed": null, or what differs between the files in the
             benchmark's work, each {"baseline", "contender"}: "label"
             (SetLabel), "items_per_iteration", "bytes_per_iteration"}],
 "geomeans": [{"metric", "change", "benchmarks"}],
 "only_in_baseline": [...], "only_in_contender": [...],
 "failed": [{"benchmark", "side", "error"}],
 "metrics_only_in_baseline": {metric: [benchmarks]},
 "metrics_only_in_contender": {...}, "notes": [...], "warnings": [...],
 "attributions": [{"benchmark", "metric", "kind": "exact"|"estimated",
                   "event", "row_delta" (contender - baseline center, per
                   iteration), "functions": [{"name", "base", "head" (per
                   iteration; null: none on that side), "delta", "share" (of
                   row_delta; null when it is 0), "status": "changed"|"added"|
                   "removed", "shown": the name as tables show it (template
                   arguments "<…>", glibc's variants named)}], "lines": [same,
                   name "file:line function", "file:line (was N) function"
                   for a line matched across moved code; share of the larger
                   of row_delta and the lines' summed |delta|],
                   "elsewhere" (row_delta less the listed functions' deltas),
                   "residual" (row_delta less every function's delta),
                   "samples": {"base", "head"} (estimated) | null}],
 "attribution_notes": [why a changed row has no attribution],
 "alloc_sites": [{"benchmark", "metric" (allocs_per_iter or
                  alloc_bytes_per_iter), "row_delta", "sites": [{"name"
                  ("file:line function", "... called from file:line
                  function" where the caller is the standard library's),
                  "base", "head" (allocations per iteration; null: none on
                  that side), "delta", "bytes_base", "bytes_head",
                  "bytes_delta", "status": "changed"|"added"|"removed"}]}],
 "alloc_site_notes": [why a changed allocation row has no sites]}
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from pmubench.verdicts import comparison as cmp
from pmubench.render import alloc_site_lines, attribution_lines, json_row_columns


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _side(s: cmp.Side) -> dict[str, Any]:
    return {"center": s.center, "n": s.n, "source": s.source, "values": s.values}


def _row(r: cmp.Row) -> dict[str, Any]:
    return {
        "benchmark": r.benchmark, "metric": r.metric, "unit": r.unit,
        "higher_is_better": r.higher_is_better,
        "baseline": _side(r.baseline), "contender": _side(r.contender),
        "change": _finite(r.change),
        "change_pct": _finite(r.change * 100.0),
        "change_infinite": (None if math.isfinite(r.change)
                            else ("+" if r.change > 0 else "-")),
        "p_value": r.p_value,
        "ci": (None if r.interval is None else
               {"low": r.interval.low, "high": r.interval.high,
                "level": r.interval.level}),
        "mode": r.mode,
        "threshold_pct": r.threshold.pct, "floor": r.threshold.floor,
        "metric_class": r.threshold.metric_class,
        "threshold_source": r.threshold.source,
        "deterministic": r.threshold.deterministic,
        "simulated": r.threshold.simulated,
        "changed_beyond_threshold": r.changed_beyond,
        "verdict": r.verdict,
        "work_changed": r.work.to_json() if r.work else None,
    }


def to_dict(c: cmp.Comparison, exit_code: int, rows: bool = True) -> dict[str, Any]:
    """The report as a dict (rows=False: without its "rows", which render
    writes itself)."""
    p = c.pairing
    return {
        "schema": "pmubench-compare/1",
        "baseline": c.baseline_path, "contender": c.contender_path,
        "alpha": c.alpha, "confidence": c.confidence,
        "exit_code": exit_code,
        "result": c.result,
        "reason": c.inconclusive,
        "machine_differences": c.machine_differences,
        "backend": {"name": c.backend.name, "valgrind": c.backend.valgrind,
                    "cache_geometry": c.backend.cache_geometry,
                    "simulated": c.backend.simulated,
                    "description": c.backend.describe()},
        "regressed_benchmarks": c.regressed_benchmarks,
        "counts": c.counts(),
        "rows": [_row(r) for r in c.rows] if rows else None,
        "geomeans": [{"metric": g.metric, "change": _finite(g.change),
                      "benchmarks": g.benchmarks} for g in c.geomeans],
        "only_in_baseline": p.only_in_baseline,
        "only_in_contender": p.only_in_contender,
        "failed": [{"benchmark": b, "side": s, "error": e} for b, s, e in p.failed],
        "metrics_only_in_baseline": p.metrics_only_in_baseline,
        "metrics_only_in_contender": p.metrics_only_in_contender,
        "notes": c.notes,
        "warnings": c.warnings,
        "attributions": [attribution_lines.json_object(a) for a in c.attributions],
        "attribution_notes": c.attribution_notes,
        "alloc_sites": [alloc_site_lines.json_object(a) for a in c.alloc_sites],
        "alloc_site_notes": c.alloc_site_notes,
    }


_ROWS = "\0rows\0"   # a placeholder no JSON string holds unescaped
_encode = json.JSONEncoder(allow_nan=False).encode
_float_text = float.__repr__   # what json's encoder writes for a float


_CONSTANTS = {None: "null", True: "true", False: "false"}


def _number(x: Any) -> str:
    """_encode(x) for a number, a bool or None; the common ones directly."""
    kind = type(x)
    if (kind is float or isinstance(x, float)) and x - x == 0.0:
        return _float_text(x)
    if kind is int:
        return int.__repr__(x)
    if x is None or kind is bool:
        return _CONSTANTS[x]
    return _encode(x)


class _Encoded(dict):
    """Each string's JSON text, encoded on first sight: looked up in C
    (a row asks for seven)."""

    def __missing__(self, text: str) -> str:
        done = self[text] = _encode(text)
        return done


def _float_or_number(x: Any) -> str:
    """_number(x), a finite float's repr without its calls."""
    if x.__class__ is float and x - x == 0.0:
        return _float_text(x)
    return _number(x)


class _RowText:
    """Each row as json's encoder writes _row(r), the same bytes, built
    from its parts: a suite of 180,000 runs a file has hundreds of
    thousands of rows, whose dicts and their encoding were most of the
    JSON format's time. A benchmark's or a threshold's part is encoded
    once and reused by every row that shares it; row() calls as few
    functions as it can (a call per field was a third of its time)."""

    def __init__(self) -> None:
        self.strings: dict[str, str] = _Encoded()
        self.thresholds: dict[int, tuple[object, str]] = {}
        self.numbers: dict[Any, str] = {}

    def string(self, text: str) -> str:
        return self.strings[text]

    def threshold(self, t: Any) -> str:
        done = self.thresholds.get(id(t))
        if done is None:
            text = (f'"threshold_pct": {_number(t.pct)}, "floor": {_number(t.floor)}, '
                    f'"metric_class": {self.string(t.metric_class)}, '
                    f'"threshold_source": {self.string(t.source)}, '
                    f'"deterministic": {_encode(t.deterministic)}, '
                    f'"simulated": {_encode(t.simulated)}')
            done = self.thresholds[id(t)] = (t, text)   # t kept: its id stays its own
        return done[1]

    def side(self, s: cmp.Side) -> str:
        values = s.values
        try:
            # benchjson.load refused NaN and infinities: a float's repr is
            # what json writes; anything else goes through _number.
            texts = list(map(_float_text, values))
        except TypeError:
            texts = list(map(_number, values))
        center = s.center
        try:   # the center of an odd sample is one of its values (not 0: -0.0 == 0.0)
            center_text = texts[values.index(center)] if center else _number(center)
        except ValueError:
            center_text = _float_or_number(center)
        n = s.n
        return (f'{{"center": {center_text}, '
                f'"n": {int.__repr__(n) if n.__class__ is int else _number(n)}, '
                f'"source": {self.strings[s.source]}, "values": [{", ".join(texts)}]}}')

    def repeated(self, x: Any) -> str:
        """_number(x) for a value many rows share (p-values of the exact
        test, the interval's level)."""
        if not x:          # None, and 0.0 apart from -0.0 (equal keys)
            return _number(x)
        done = self.numbers.get(x)
        if done is None:
            done = self.numbers[x] = _number(x)
        return done

    def row(self, r: cmp.Row) -> str:
        strings, numbers = self.strings, self.numbers
        change = r.change
        finite = math.isfinite(change)
        if finite and change.__class__ is float:   # the common case without _number's calls
            pct = change * 100.0
            change_text = _float_text(change)
            pct_text = _float_text(pct) if pct - pct == 0.0 else "null"
        else:
            change_text = _number(_finite(change))
            pct_text = _number(_finite(change * 100.0))
        iv = r.interval
        if iv is None:
            ci = "null"
        else:
            level = iv.level
            ci = (f'{{"low": {_float_or_number(iv.low)}, "high": {_float_or_number(iv.high)}, '
                  f'"level": {(level and numbers.get(level)) or self.repeated(level)}}}')
        p = r.p_value
        higher, beyond = r.higher_is_better, r.changed_beyond
        threshold = self.thresholds.get(id(r.threshold))
        return (
            f'{{"benchmark": {strings[r.benchmark]}, "metric": {strings[r.metric]}, '
            f'"unit": {strings[r.unit]}, "higher_is_better": '
            f'{("true" if higher else "false") if higher.__class__ is bool else _number(higher)}, '
            f'"baseline": {self.side(r.baseline)}, "contender": {self.side(r.contender)}, '
            f'"change": {change_text}, "change_pct": {pct_text}, '
            f'"change_infinite": {"null" if finite else _encode("+" if change > 0 else "-")}, '
            f'"p_value": {(p and numbers.get(p)) or self.repeated(p)}, "ci": {ci}, '
            f'"mode": {strings[r.mode]}, '
            f'{threshold[1] if threshold is not None else self.threshold(r.threshold)}, '
            f'"changed_beyond_threshold": '
            f'{("true" if beyond else "false") if beyond.__class__ is bool else _number(beyond)}, '
            f'"verdict": {strings[r.verdict]}, '
            f'"work_changed": {_encode(r.work.to_json()) if r.work else "null"}}}')


def render(c: cmp.Comparison, exit_code: int) -> str:
    """Indented, with one row a line (the rows as _RowText writes them:
    indent makes json use its Python encoder, several times slower)."""
    return "".join(render_parts(c, exit_code))


# Rows a part of render_parts holds: parts of a few MB, not one string of
# the whole report (220 MB for 288,000 rows, made and copied again and
# again: most of the JSON format's system time).
_ROWS_A_PART = 4096


def render_parts(c: cmp.Comparison, exit_code: int) -> Iterator[str]:
    """render's text in parts, in order, made as they are asked for:
    what compare.py writes out one at a time."""
    report = to_dict(c, exit_code, rows=False)
    report["rows"] = _ROWS
    text = json.dumps(report, indent=2, allow_nan=False)
    placeholder = '\n  "rows": ' + json.dumps(_ROWS)
    before, sep, after = text.partition(placeholder)
    assert sep, "the rows placeholder is where json.dumps put it"
    if not c.rows:
        yield before + '\n  "rows": []' + after + "\n"
        return
    yield before + '\n  "rows": [\n'
    writer = _RowText()
    row_text = writer.row
    rows = c.rows
    for start in range(0, len(rows), _ROWS_A_PART):
        some = rows[start:start + _ROWS_A_PART]
        texts = json_row_columns.row_texts(some, writer)
        part = ",\n".join(texts if texts is not None else ["    " + row_text(r) for r in some])
        yield part if start == 0 else ",\n" + part
    yield "\n  ]" + after + "\n"
