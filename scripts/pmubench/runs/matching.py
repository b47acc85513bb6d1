"""Pairs the runs of a baseline and a contender file by benchmark name.

A benchmark's sample for a metric is, in order of preference:
- "repetitions": the per-repetition values (run_type "iteration"), when the
  file holds more than one repetition of it;
- "median aggregate" or, without one, "mean aggregate": files written with
  --benchmark_report_aggregates_only=true hold only mean, median, stddev and
  cv; the median is used because one slow repetition moves it least;
- "single run": one iteration run.

Names are matched with any "/repeats:N" component removed, so a case whose
repetition count changed between the two builds still pairs up.

Two registrations can write runs of one name (->Threads(8) and
->ThreadRange(1, 32) both give "BM_X/threads:8"); Google Benchmark tells
them apart by family_index and per_family_instance_index. They are not
repetitions of one benchmark: the second registration of a name (in file
order) is compared as "NAME#2", the third as "NAME#3", and a note says so.
Files without those fields pool runs of one name, as before.
"""

from __future__ import annotations

import itertools
import operator
import re
from dataclasses import dataclass, field

from pmubench.runs import benchjson, lazyruns

REPETITIONS = "repetitions"
MEDIAN_AGGREGATE = "median aggregate"
MEAN_AGGREGATE = "mean aggregate"
SINGLE_RUN = "single run"

_REPEATS = re.compile(r"/repeats:\d+(?=/|$)")


def match_key(run_name: str) -> str:
    """'BM_Chase/4096/repeats:5/threads:1' -> 'BM_Chase/4096/threads:1'."""
    # Most names have no repeats component: no regex for them.
    return _REPEATS.sub("", run_name) if "/repeats:" in run_name else run_name


@dataclass
class Sample:
    values: list[float]
    source: str          # REPETITIONS, MEDIAN_AGGREGATE, MEAN_AGGREGATE, SINGLE_RUN


@dataclass
class BenchmarkRuns:
    """Every usable run of one benchmark in one file."""
    name: str
    time_unit: str
    iterations: list[benchjson.Run] = field(default_factory=list)
    aggregates: dict[str, benchjson.Run] = field(default_factory=dict)
    error: str = ""
    # Where each iteration is in the file's runs (BenchFile.metric_columns'
    # rows), in order.
    indexes: list[int] = field(default_factory=list, repr=False, compare=False)
    # Each metric's values over the iterations, in order, and the metric
    # names: made on first use, once the runs are grouped (a large suite
    # asks for every metric of every benchmark).
    _columns: dict[str, list[float]] | None = field(default=None, repr=False,
                                                    compare=False)
    _names: list[str] | None = field(default=None, repr=False, compare=False)

    def metric_names(self) -> list[str]:
        if self._names is None and not self.aggregates:
            # The iterations' metrics in order of first sight: what
            # columns() keys (a suite's benchmarks have no aggregates).
            self._names = list(self.columns())
        if self._names is None:
            seen: dict[str, None] = {}
            for run in self.iterations + list(self.aggregates.values()):
                if run.aggregate_name in ("stddev", "cv"):
                    continue
                seen.update(dict.fromkeys(run.metrics))
            self._names = list(seen)
        return list(self._names)

    def columns(self) -> dict[str, list[float]]:
        """Each metric's values over the iterations, in order (the lists
        are shared: copy one before changing it)."""
        if self._columns is None and isinstance(self.iterations, lazyruns.LazyRuns):
            self._columns = self.iterations.columns()   # the file's, unmade
        if self._columns is None:
            self._columns = _columns([run.metrics for run in self.iterations])
        return self._columns

    def _values(self, metric: str) -> list[float]:
        return list(self.columns().get(metric, ()))

    def sample(self, metric: str) -> Sample | None:
        values = self._values(metric)
        if len(values) > 1:
            return Sample(values, REPETITIONS)
        for agg, source in (("median", MEDIAN_AGGREGATE), ("mean", MEAN_AGGREGATE)):
            run = self.aggregates.get(agg)
            if run is not None and metric in run.metrics:
                return Sample([run.metrics[metric]], source)
        if values:
            return Sample(values, SINGLE_RUN)
        return None


def _columns(rows: list[dict[str, float]]) -> dict[str, list[float]]:
    """Each metric's values over the rows, in row order."""
    names = list(rows[0]) if rows else []
    if all(list(row) == names for row in rows):
        # The common case, every row with the same metrics: in C.
        return dict(zip(names, map(list, zip(*[row.values() for row in rows]))))
    columns: dict[str, list[float]] = {}
    for row in rows:
        for name, value in row.items():
            columns.setdefault(name, []).append(value)
    return columns


def group_runs(bench: benchjson.BenchFile,
               registrations: dict[str, list] | None = None
               ) -> dict[str, BenchmarkRuns]:
    """The runs of one file by match key, in file order. registrations,
    when given, receives each name's registrations ((family_index,
    per_family_instance_index), in file order) when there is more than one."""
    groups: dict[str, BenchmarkRuns] = {}
    seen: dict[str, list] = {}
    keys: dict[str, str] = {}     # run name -> match key: each once
    columns = bench.metric_columns()
    if columns is not None and _group_columns(bench, list(columns), groups):
        return groups    # one registration a name
    _group_made_runs(bench, columns is not None, groups, keys, seen)
    if registrations is not None:
        registrations.update({k: v for k, v in seen.items() if len(v) > 1})
    if columns is not None:
        # Every run has every metric of the columns, in their order: what
        # metric_names() would find in each benchmark of iterations only.
        names = list(columns)
        for group in groups.values():
            if group.iterations and not group.aggregates:
                group._names = names
    return groups


def _group_made_runs(bench: benchjson.BenchFile, one_shape: bool,
                     groups: dict[str, BenchmarkRuns], keys: dict[str, str],
                     seen: dict[str, list]) -> None:
    """group_runs from the file's Runs, one at a time or, in a file of one
    shape (one_shape) of iterations only, a stretch at a time."""
    if one_shape and not any(r.run_type == "aggregate" for r in bench.runs):
        _group_iterations(bench, groups, keys, seen)
        return
    for index, run in enumerate(bench.runs):
        group = _group_of(bench.path, run, groups, keys, seen)
        if run.failed:
            group.error = run.error_message
        elif run.run_type == "aggregate":
            group.aggregates[run.aggregate_name] = run
        else:
            group.iterations.append(run)
            group.indexes.append(index)


# What a file of benchmarks of repetitions keeps the same along the runs
# of one benchmark: the name, the registration and the time unit.
_SEGMENT = operator.attrgetter("run_name", "family_index", "instance_index", "time_unit")


def _group_iterations(bench: benchjson.BenchFile, groups: dict[str, BenchmarkRuns],
                      keys: dict[str, str], seen: dict[str, list]) -> None:
    """group_runs for a file of iterations none of which failed (a
    suite's repetitions, one benchmark's runs next to each other): a
    stretch of runs of one name, registration and unit at a time."""
    index, runs = 0, bench.runs
    # The stretches' lengths, then each stretch a slice of the runs (in C).
    for length in map(len, map(list, map(operator.itemgetter(1),
                                          itertools.groupby(map(_SEGMENT, runs))))):
        end = index + length
        group = _group_of(bench.path, runs[index], groups, keys, seen)
        group.iterations += runs[index:end]
        group.indexes += range(index, end)
        index = end


def _group_columns(bench: benchjson.BenchFile, metric_names: list[str],
                   groups: dict[str, BenchmarkRuns]) -> bool:
    """group_runs for a file of one shape whose runs nobody has made yet
    (lazyruns), of iterations only, each benchmark one stretch of runs
    (one name, registration and unit) with a match key of its own, from
    the name, index and unit columns: every group's iterations a stretch
    of the file's runs, made on first use. False (groups untouched) for
    any other file: _group_of's ways then say what it is. Every run has
    every metric of metric_names, in that order."""
    runs = bench.runs
    fields = runs.fields() if isinstance(runs, lazyruns.LazyRuns) else None
    if fields is None or "aggregate" in fields["run_type"]:
        return False
    names, units = fields["run_name"], fields["time_unit"]
    starts = _stretch_starts(names, (fields["family_index"], fields["instance_index"], units))
    keys = list(map(match_key, map(names.__getitem__, starts)))
    if len(set(keys)) != len(keys):
        return False   # a name in two stretches or of two registrations
    stops = starts[1:] + [len(names)]
    repeat = itertools.repeat
    groups.update(zip(keys, map(
        BenchmarkRuns, keys, map(units.__getitem__, starts), map(runs.stretch, starts, stops),
        iter(dict, None), repeat(""), map(list, map(range, starts, stops)), repeat(None),
        repeat(metric_names))))
    return True


def _stretch_starts(names: list[str], others: tuple) -> list[int]:
    """Where a run differs from the one before in its name or in a column
    of others (registration, unit): where a new stretch starts, 0 first.
    In C, a column at a time: where the name changes; then each other
    column that holds more than one value is its value at each of those
    starts, repeated over the stretch, or the changes of every column
    are looked for together."""
    count = len(names)
    starts = [0, *itertools.compress(range(1, count), map(
        operator.ne, itertools.islice(names, 1, None), names))]
    lengths = list(map(operator.sub, starts[1:] + [count], starts))
    for column in others:
        if column.count(column[0]) == count:
            continue
        spread = itertools.chain.from_iterable(map(
            itertools.repeat, map(column.__getitem__, starts), lengths))
        if list(spread) != list(column):
            return _all_changes(names, others)
    return starts


def _all_changes(names: list[str], others: tuple) -> list[int]:
    """_stretch_starts of columns that change inside a name's stretch."""
    changed = map(operator.ne, names[1:], names)
    for column in others:
        changed = map(operator.or_, changed, map(operator.ne, column[1:], column))
    return [0, *itertools.compress(range(1, len(names)), changed)]


def _group_of(path: str, run: benchjson.Run, groups: dict[str, BenchmarkRuns],
              keys: dict[str, str], seen: dict[str, list]) -> BenchmarkRuns:
    """The group a run belongs to (made on first sight). Raises BadInput
    when a run that did not fail has another time unit than its group."""
    key = keys.get(run.run_name)
    if key is None:
        key = keys[run.run_name] = match_key(run.run_name)
    reg = run.registration
    if reg is not None:
        regs = seen.setdefault(key, [])
        if reg not in regs:
            regs.append(reg)
        number = regs.index(reg) + 1
        if number > 1:
            key = f"{key}#{number}"
    group = groups.get(key)
    if group is None:
        group = groups[key] = BenchmarkRuns(key, run.time_unit)
    if not run.failed and run.time_unit != group.time_unit:
        raise benchjson.BadInput(
            f"{path}: {key} has runs in both {group.time_unit} and "
            f"{run.time_unit}; write each benchmark with one time unit")
    return group


@dataclass
class Pairing:
    """What the two files share and what only one of them has."""
    common: list[tuple[BenchmarkRuns, BenchmarkRuns]]
    only_in_baseline: list[str]
    only_in_contender: list[str]
    failed: list[tuple[str, str, str]]   # (benchmark, side, error message)
    # metric -> benchmarks where only that side has it
    metrics_only_in_baseline: dict[str, list[str]]
    metrics_only_in_contender: dict[str, list[str]]
    # Notes on names that two registrations share (see the module comment).
    duplicate_notes: list[str] = field(default_factory=list)


def pair(baseline: benchjson.BenchFile, contender: benchjson.BenchFile) -> Pairing:
    """Pairs the benchmarks of two files. Raises BadInput when a shared
    benchmark has different time units on the two sides (naming both files)
    or when the files share no benchmark that ran on both sides."""
    base_regs: dict[str, list] = {}
    cont_regs: dict[str, list] = {}
    base_groups = group_runs(baseline, base_regs)
    cont_groups = group_runs(contender, cont_regs)
    common = _all_common(base_groups, cont_groups)
    failed: list[tuple[str, str, str]] = []
    only_base: list[str] = []
    only_cont: list[str] = []
    if common is None:
        common, failed, only_base = _common(base_groups, cont_groups,
                                            baseline.path, contender.path)
        only_cont = [key for key in cont_groups if key not in base_groups]
    if not common:
        raise benchjson.BadInput(
            f"{baseline.path} and {contender.path} have no benchmark in common"
            " that ran on both sides; were they written by the same suite "
            "with the same --benchmark_filter?")
    metrics_b, metrics_c = _metrics_of_one_side(common)
    return Pairing(common, only_base, only_cont, failed, metrics_b, metrics_c,
                   duplicate_notes(baseline.path, base_regs, contender.path, cont_regs))


def _all_common(base_groups: dict[str, BenchmarkRuns], cont_groups: dict[str, BenchmarkRuns]
                ) -> list[tuple[BenchmarkRuns, BenchmarkRuns]] | None:
    """_common's pairs when the two files hold the same benchmarks, none
    failed, each in one unit on both sides (a suite against itself): in C.
    None for any other two files."""
    if len(base_groups) != len(cont_groups) or base_groups.keys() != cont_groups.keys():
        return None
    base = list(base_groups.values())
    cont = list(map(cont_groups.__getitem__, base_groups))
    error, unit = operator.attrgetter("error"), operator.attrgetter("time_unit")
    if (any(map(error, base)) or any(map(error, cont))
            or list(map(unit, base)) != list(map(unit, cont))):
        return None
    return list(zip(base, cont))


def _common(base_groups: dict[str, BenchmarkRuns], cont_groups: dict[str, BenchmarkRuns],
            base_path: str, cont_path: str) -> tuple[list, list, list[str]]:
    """The benchmarks both files ran, in baseline order; those that failed
    on a side, as (benchmark, side, error); those only the baseline has.
    Raises BadInput when a shared benchmark has two time units."""
    common, failed, only_base = [], [], []
    for key, b in base_groups.items():
        c = cont_groups.get(key)
        if c is None:
            only_base.append(key)
            continue
        if b.error or c.error:
            failed += [(key, "baseline", b.error)] if b.error else []
            failed += [(key, "contender", c.error)] if c.error else []
            continue
        if b.time_unit != c.time_unit:
            raise benchjson.BadInput(
                f"{key} is in {b.time_unit} in {base_path} but in "
                f"{c.time_unit} in {cont_path}; run both with the same "
                "time unit (->Unit(...) or --benchmark_time_unit)")
        common.append((b, c))
    return common, failed, only_base


def _metrics_of_one_side(common: list[tuple[BenchmarkRuns, BenchmarkRuns]]
                         ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each metric only one side of a shared benchmark has, with those
    benchmarks: (the baseline's, the contender's)."""
    metrics_b: dict[str, list[str]] = {}
    metrics_c: dict[str, list[str]] = {}
    first_b, first_c = common[0][0]._names, common[0][1]._names
    if first_b is not None and first_b == first_c and all(
            b._names is first_b and c._names is first_c for b, c in common):
        return metrics_b, metrics_c   # every benchmark the file's columns' metrics
    for b, c in common:
        names_b, names_c = b.metric_names(), c.metric_names()
        if names_b == names_c:
            continue      # the common case: nothing only one side has
        mb, mc = set(names_b), set(names_c)
        for metric in names_b:
            if metric not in mc:
                metrics_b.setdefault(metric, []).append(b.name)
        for metric in names_c:
            if metric not in mb:
                metrics_c.setdefault(metric, []).append(c.name)
    return metrics_b, metrics_c


def duplicate_notes(base_path: str, base_regs: dict[str, list],
                    cont_path: str, cont_regs: dict[str, list],
                    limit: int = 5) -> list[str]:
    """One note per name that several registrations share, in either file."""
    notes = []
    names = list(dict.fromkeys(list(base_regs) + list(cont_regs)))
    for name in names[:limit]:
        regs = base_regs.get(name) or cont_regs[name]
        where = (f"{base_path} and {cont_path}" if name in base_regs and name in cont_regs
                 else base_path if name in base_regs else cont_path)
        listed = ", ".join(f"family_index {f} instance {i}" for f, i in regs)
        apart = ", ".join([name] + [f"{name}#{k}" for k in range(2, len(regs) + 1)])
        notes.append(
            f"{len(regs)} registrations write runs named {name} in {where} "
            f"({listed}): compared apart as {apart}, not pooled as "
            "repetitions; give them distinct names (->Name()) to tell them apart")
    if len(names) > limit:
        notes.append(f"... and {len(names) - limit} more names written by "
                     "several registrations, each compared apart the same way")
    return notes
