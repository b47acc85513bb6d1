"""The JSON report's rows written a column at a time: what compare_json's
_RowText.row writes for each row, the same bytes, for a part of rows of
the common kind (a large suite's: every side's values and centers finite
floats, the same number of them on each side, a finite change, p a float
or None, every interval or none, booleans that are bools, no work
change). Each field's text is made for the whole part by calls in C
(float.__repr__ mapped over a column, the strings looked up in the
writer's cache) and each row is one join of its fields: a row's dozens
of f-string parts and two side() calls were most of the format's time.

    texts = row_texts(rows, writer)   # None: a row is not of that kind

writer is compare_json's _RowText (its `strings`, the JSON text of each
string, and `threshold(t)`, a threshold's fields); a part with any other
row is written row by row by it, as before.
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any

_float_text = float.__repr__
_BOOLS = {True: "true", False: "false"}
_BASELINE = operator.attrgetter("baseline")
_CONTENDER = operator.attrgetter("contender")


def _all_finite(values: list) -> bool:
    """Every value is a finite float (numpy's float64 too)."""
    kinds = set(map(type, values))
    if kinds == {float}:
        total = sum(values)     # inf or nan when any value is either
        return total - total == 0.0
    return all(issubclass(kind, float) for kind in kinds) and all(map(math.isfinite, values))


def _finite_floats(values: list) -> list[str] | None:
    """Each value's text as _RowText writes a float (float.__repr__), or
    None unless every value is a finite float."""
    return list(map(_float_text, values)) if _all_finite(values) else None


def _bools(values: list) -> list[str] | None:
    """'true' or 'false' of each value, None unless all are bools (1 is
    written 1)."""
    if set(map(type, values)) - {bool}:
        return None
    return list(map(_BOOLS.__getitem__, values))


def _side_fields(sides: list, strings: Any) -> list | None:
    """The fields of each side's text, as columns (a string: the same in
    every row), or None when a side is not of the common kind."""
    sizes = list(map(operator.attrgetter("n"), sides))
    values = list(map(operator.attrgetter("values"), sides))
    flat = list(itertools.chain.from_iterable(values))
    # The center's text: an odd sample's is one of its values, whose repr
    # _RowText reuses; equal finite floats but 0.0 and -0.0 have one repr,
    # and a zero center is written as itself there too.
    centers = _finite_floats(list(map(operator.attrgetter("center"), sides)))
    if set(map(type, sizes)) != {int} or centers is None or not _all_finite(flat):
        return None
    fields: list = ['{"center": ', centers, ', "n": ', list(map(int.__repr__, sizes)),
                    ', "source": ',
                    list(map(strings.__getitem__, map(operator.attrgetter("source"), sides))),
                    ', "values": ']
    if set(map(type, flat)) == {float} and set(map(type, values)) == {list}:
        # A list of floats' repr is json's text of it: one call a side.
        return fields + [list(map(list.__repr__, values)), "}"]
    return fields + [["[" + ", ".join(map(_float_text, v)) + "]" for v in values], "}"]


def _with_nulls(values: list, texts: list[str]) -> list[str]:
    """'null' for each None of values, and texts in turn for the others."""
    if len(texts) == len(values):
        return texts
    done = iter(texts)
    return ["null" if x is None else next(done) for x in values]


def _ci_texts(intervals: list) -> list[str] | None:
    """Each row's "ci" ('null' for None), or None unless every interval
    holds finite floats."""
    present = [iv for iv in intervals if iv is not None]
    columns = [_finite_floats(list(map(operator.attrgetter(name), present)))
               for name in ("low", "high", "level")]
    if None in columns:
        return None
    texts = list(map("".join, zip(
        itertools.repeat('{"low": '), columns[0], itertools.repeat(', "high": '),
        columns[1], itertools.repeat(', "level": '), columns[2], itertools.repeat("}"))))
    return _with_nulls(intervals, texts)


def _p_texts(values: list) -> list[str] | None:
    """Each p-value's text ('null' for None), None unless each is a finite
    float or None."""
    texts = _finite_floats([p for p in values if p is not None])
    return None if texts is None else _with_nulls(values, texts)


def _strings(rows: list, name: str, strings: Any) -> list[str]:
    """The JSON text of each row's string field name (strings: the
    writer's cache)."""
    return list(map(strings.__getitem__, map(operator.attrgetter(name), rows)))


def _row_fields(rows: list, writer: Any) -> list | None:
    """The fields of each row's text, as columns (a string: the same in
    every row), or None when a row is not of the common kind."""
    strings = writer.strings
    if any(map(operator.attrgetter("work"), rows)):
        return None
    changes = _finite_floats(list(map(operator.attrgetter("change"), rows)))
    if changes is None:
        return None
    pcts = _finite_floats(list(map(operator.mul, map(operator.attrgetter("change"), rows),
                                   itertools.repeat(100.0))))
    higher = _bools(list(map(operator.attrgetter("higher_is_better"), rows)))
    beyond = _bools(list(map(operator.attrgetter("changed_beyond"), rows)))
    p_values = _p_texts(list(map(operator.attrgetter("p_value"), rows)))
    ci = _ci_texts(list(map(operator.attrgetter("interval"), rows)))
    baseline = _side_fields(list(map(_BASELINE, rows)), strings)
    contender = _side_fields(list(map(_CONTENDER, rows)), strings)
    if None in (pcts, higher, beyond, p_values, ci, baseline, contender):
        return None
    thresholds = list(map(operator.attrgetter("threshold"), rows))
    known = {key: writer.threshold(t) for key, t in
             {id(t): t for t in thresholds}.items()}
    return ['    {"benchmark": ', _strings(rows, "benchmark", strings),
            ', "metric": ', _strings(rows, "metric", strings),
            ', "unit": ', _strings(rows, "unit", strings),
            ', "higher_is_better": ', higher, ', "baseline": ', *baseline,
            ', "contender": ', *contender, ', "change": ', changes,
            ', "change_pct": ', pcts, ', "change_infinite": null, "p_value": ', p_values,
            ', "ci": ', ci, ', "mode": ', _strings(rows, "mode", strings), ", ",
            list(map(known.__getitem__, map(id, thresholds))),
            ', "changed_beyond_threshold": ', beyond,
            ', "verdict": ', _strings(rows, "verdict", strings), ', "work_changed": null}']


def row_texts(rows: list, writer: Any) -> list[str] | None:
    """"    " + writer.row(r) of each row (see the module comment), or None
    when a row is not of the common kind."""
    fields = _row_fields(rows, writer) if rows else None
    if fields is None:
        return None
    columns = []
    for kind, group in itertools.groupby(fields, type):
        if kind is str:
            columns.append(itertools.repeat("".join(group)))
        else:
            columns += group
    return list(map("".join, zip(*columns)))
