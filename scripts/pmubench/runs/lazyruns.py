"""A file's runs made on first use: the list benchjson.load gives as
`BenchFile.runs` for a file of one shape, and the stretches of it pairing
gives as a benchmark's `iterations`.

benchjson checks such a file a column at a time; making a `Run` and a
metrics dict for each of its runs was most of what reading it cost
besides the JSON parser, and a comparison of two such files asks for none
of them (it reads the columns). `LazyRuns` behaves as the list of those
`Run`s (indexing, iterating, changing it, comparing it with a list): the
file's makes every run at once, a stretch its own runs (past MAX_PARTS
stretches, the rest of the file at once). Until a run is made,
`columns()` gives the stretch's metric columns and `fields()` the file's
structural ones, and they describe the runs exactly: no run has been
handed out to be changed.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import MutableSequence
from typing import Any, Callable


class RunMaker:
    """Makes a file's runs, each once: a stretch of them when a stretch is
    asked for (a benchmark's iterations), all of them when the file's list
    is; a run made for a stretch is the same Run in the file's list."""
    __slots__ = ("_make", "_count", "_some", "_parts", "_all", "runs", "metric_columns",
                 "field_columns")
    # Stretches made one by one before the rest are made at once: a few
    # (the benchmarks a comparison attributes) cost little alone, every
    # benchmark's (a comparison row by row) far more than all in one go.
    MAX_PARTS = 64

    def __init__(self, make: Callable[[int, int], list], count: int,
                 metric_columns: dict[str, list], field_columns: dict[str, Any]):
        self._make = make         # the Runs start..stop, made anew
        self._count = count
        self._some: list | None = None   # each run made so far, else None
        self._parts = 0
        self._all: list | None = None    # every run, once made, for the stretches
        self.runs: list | None = None    # the file's list of them (its owner may change it)
        # Each metric's values and each structural field's (run_name,
        # run_type, time_unit, label, family_index, instance_index), over
        # every run, in order.
        self.metric_columns = metric_columns
        self.field_columns = field_columns

    @property
    def handed_out(self) -> bool:
        """True once any run has been made (and could have been changed)."""
        return self._some is not None or self._all is not None

    def get(self) -> list:
        """Every run, in order: the file's list."""
        if self._all is None:
            runs = self._make(0, self._count)
            if self._some is not None:
                runs = [r if r is not None else new for r, new in zip(self._some, runs)]
            self._all, self._some, self._make = runs, None, None
            self.runs = list(runs)
        return self.runs

    def part(self, start: int, stop: int) -> list:
        """The runs start..stop, in order (a new list)."""
        if self._all is None and self._parts >= self.MAX_PARTS:
            self.get()
        if self._all is not None:
            return self._all[start:stop]
        if self._some is None:
            self._some = [None] * self._count
        part = self._some[start:stop]
        if not all(map(operator.is_not, part, itertools.repeat(None))):
            new = self._make(start, stop)
            part = [r if r is not None else n for r, n in zip(part, new)]
            self._some[start:stop] = part
            self._parts += 1
        return part


class LazyRuns(MutableSequence):
    """The runs start..stop of a RunMaker's file as a list, made on first
    use (the whole file's is the maker's list itself; a stretch's, a copy
    of its part, as a slice of the list would be)."""
    __slots__ = ("_maker", "_start", "_stop", "_whole", "_runs")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, maker: RunMaker, start: int, stop: int, whole: bool = False):
        self._maker, self._start, self._stop, self._whole = maker, start, stop, whole
        self._runs: list | None = None

    @property
    def made(self) -> bool:
        """True once any run of the file has been made (handed out)."""
        return self._maker.handed_out

    def _list(self) -> list:
        if self._runs is None:
            self._runs = (self._maker.get() if self._whole
                          else self._maker.part(self._start, self._stop))
        return self._runs

    def columns(self) -> dict[str, list] | None:
        """Each metric's values over these runs, in order; None once the
        runs are made (they may have been changed since)."""
        if self.made:
            return None
        if self._whole:
            return self._maker.metric_columns
        return {k: col[self._start:self._stop] for k, col in self._maker.metric_columns.items()}

    def fields(self) -> dict[str, Any] | None:
        """The structural columns of the whole file (see RunMaker), or None
        once the runs are made."""
        return None if self.made else self._maker.field_columns

    def stretch(self, start: int, stop: int) -> LazyRuns:
        """The runs start..stop of the file, made on first use."""
        return LazyRuns(self._maker, start, stop)

    def __len__(self) -> int:
        return self._stop - self._start if self._runs is None else len(self._runs)

    def __getitem__(self, index):
        return self._list()[index]

    def __setitem__(self, index, value) -> None:
        self._list()[index] = value

    def __delitem__(self, index) -> None:
        del self._list()[index]

    def insert(self, index: int, value) -> None:
        self._list().insert(index, value)

    def __iter__(self):
        return iter(self._list())

    def __reversed__(self):
        return reversed(self._list())

    def __contains__(self, value) -> bool:
        return value in self._list()

    def __eq__(self, other) -> bool:
        if isinstance(other, LazyRuns):
            other = other._list()
        return self._list() == other if isinstance(other, list) else NotImplemented

    def __add__(self, other):
        if isinstance(other, LazyRuns):
            other = other._list()
        return self._list() + other if isinstance(other, list) else NotImplemented

    def __radd__(self, other):
        return other + self._list() if isinstance(other, list) else NotImplemented

    def __iadd__(self, other):
        self._list().extend(other)
        return self

    def __mul__(self, times: int) -> list:
        return self._list() * times

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return repr(self._list())

    def __reduce__(self):
        return (list, (self._list(),))

    def copy(self) -> list:
        return list(self._list())

    def sort(self, *args, **kwargs) -> None:
        self._list().sort(*args, **kwargs)
