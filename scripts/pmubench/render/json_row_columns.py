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

from pmubench.verdicts.rows import Row, Side

_float_text = float.__repr__
_BOOLS = {True: "true", False: "false"}


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


class _Reprs(dict):
    """Each float's repr, made on first sight."""

    def __missing__(self, value: float) -> str:
        text = self[value] = _float_text(value)
        return text


def _repeated_floats(values: list) -> list[str] | None:
    """_finite_floats of values that repeat (p-values of the exact test,
    an interval's level): each distinct value's repr made once. With a
    zero among them, each is made: 0.0 and -0.0 are one key but two
    texts."""
    if not _all_finite(values):
        return None
    if 0.0 in values:
        return list(map(_float_text, values))
    return list(map(_Reprs().__getitem__, values))


def _bools(values: list) -> list[str] | None:
    """'true' or 'false' of each value, None unless all are bools (1 is
    written 1)."""
    if set(map(type, values)) - {bool}:
        return None
    return list(map(_BOOLS.__getitem__, values))


def _side_fields(sides: tuple, strings: Any) -> list | None:
    """The fields of each side's text, as columns (a string: the same in
    every row), or None when a side is not of the common kind."""
    if set(map(type, sides)) != {Side}:
        return None
    centers, sizes, sources, values, _ = zip(*sides)     # Side's fields, in C
    flat = list(itertools.chain.from_iterable(values))
    if set(map(type, sizes)) != {int} or not _all_finite(centers) or not _all_finite(flat):
        return None
    lists = set(map(type, values)) == {list}
    texts = _odd_sample_texts(values, flat, centers) if lists else None
    if texts is not None:
        center_texts, value_texts = texts
        open_, close = "[", "]"
    elif lists and set(map(type, flat)) == {float}:
        # A list of floats' repr is json's text of it: one call a side.
        center_texts = list(map(_float_text, centers))
        open_, value_texts, close = "", list(map(list.__repr__, values)), ""
    else:
        center_texts = list(map(_float_text, centers))
        open_, close = "[", "]"
        value_texts = list(map(", ".join, map(map, itertools.repeat(_float_text), values)))
    return ['{"center": ', center_texts, ', "n": ', _same_or_each(sizes, int.__repr__),
            ', "source": ', _same_or_each(sources, strings.__getitem__),
            ', "values": ' + open_, value_texts, close + "}"]


def _same_or_each(column: tuple, text: Any) -> str | list[str]:
    """text of the value every row of column holds (a string, joined with
    the constant parts around it), else text of each."""
    kinds = set(column)
    if len(kinds) == 1:
        return text(kinds.pop())
    return list(map(text, column))


def _odd_sample_texts(values: list, flat: list, centers: list
                      ) -> tuple[list[str], list[str]] | None:
    """(each center's text, each side's values joined by ', ') for sides
    (their values in lists) of one odd size n whose centers are non-zero:
    each value's repr made once and the center's taken from it (an odd
    sample's median is one of its values, and equal non-zero floats have
    one repr: a float's repr is the JSON format's costliest part). None for any other sides (a zero center
    may be -0.0 or 0.0, equal but written apart)."""
    sizes = set(map(len, values))
    if len(sizes) != 1 or 0.0 in centers:
        return None
    n = sizes.pop()
    if n % 2 == 0:
        return None
    texts = list(map(_float_text, flat))
    try:
        where = list(map(operator.add, range(0, len(flat), n),
                         map(list.index, values, centers)))
    except ValueError:     # a center that is none of its values
        return None
    return list(map(texts.__getitem__, where)), list(map(", ".join, zip(*[iter(texts)] * n)))


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
               for name in ("low", "high")]
    columns.append(_repeated_floats(list(map(operator.attrgetter("level"), present))))
    if None in columns:
        return None
    texts = list(map("".join, zip(
        itertools.repeat('{"low": '), columns[0], itertools.repeat(', "high": '),
        columns[1], itertools.repeat(', "level": '), columns[2], itertools.repeat("}"))))
    return _with_nulls(intervals, texts)


def _p_texts(values: list) -> list[str] | None:
    """Each p-value's text ('null' for None), None unless each is a finite
    float or None."""
    texts = _repeated_floats([p for p in values if p is not None])
    return None if texts is None else _with_nulls(values, texts)


def _row_fields(rows: list, writer: Any) -> list | None:
    """The fields of each row's text, as columns (a string: the same in
    every row), or None when a row is not of the common kind."""
    if set(map(type, rows)) != {Row}:
        return None
    # Every field a column, by one transposition in C (rows are named tuples).
    c = dict(zip(Row._fields, zip(*rows)))
    strings = writer.strings
    if any(c["work"]):
        return None
    changes = _finite_floats(c["change"])
    if changes is None:
        return None
    pcts = _finite_floats(list(map(operator.mul, c["change"], itertools.repeat(100.0))))
    higher, beyond = _bools(c["higher_is_better"]), _bools(c["changed_beyond"])
    p_values, ci = _p_texts(c["p_value"]), _ci_texts(c["interval"])
    baseline = _side_fields(c["baseline"], strings)
    contender = _side_fields(c["contender"], strings)
    if None in (pcts, higher, beyond, p_values, ci, baseline, contender):
        return None
    thresholds = c["threshold"]
    known = {key: writer.threshold(t) for key, t in
             {id(t): t for t in thresholds}.items()}
    return ['    {"benchmark": ', list(map(strings.__getitem__, c["benchmark"])),
            ', "metric": ', _same_or_each(c["metric"], strings.__getitem__),
            ', "unit": ', _same_or_each(c["unit"], strings.__getitem__),
            ', "higher_is_better": ', higher, ', "baseline": ', *baseline,
            ', "contender": ', *contender, ', "change": ', changes,
            ', "change_pct": ', pcts, ', "change_infinite": null, "p_value": ', p_values,
            ', "ci": ', ci, ', "mode": ', _same_or_each(c["mode"], strings.__getitem__), ", ",
            _same_or_each(tuple(map(id, thresholds)), known.__getitem__),
            ', "changed_beyond_threshold": ', beyond,
            ', "verdict": ', list(map(strings.__getitem__, c["verdict"])),
            ', "work_changed": null}']


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
