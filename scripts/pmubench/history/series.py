"""A series' points: one per commit on a branch, ordered by commit time
(the earliest time of the commit's runs), each with every repetition of
every run at that commit that is not excluded."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import dataclass, field
from itertools import chain, groupby
from operator import itemgetter

import numpy as np
from sqlalchemy import and_, select

from pmubench.verdicts import metrics
from pmubench.history import schema

# Relative difference below which two counts are one value (float noise of
# a per-iteration division).
EXACT_TOLERANCE = 1e-12


def model_of(metric: str, backend: str, layout_sensitive: bool = False) -> metrics.Metric:
    """The metric model (verdicts/metrics.py) of a series of a machine of
    backend; layout_sensitive when its benchmark's runs say so."""
    return metrics.describe(metric, backend, layout_sensitive)


def same(a: float, b: float) -> bool:
    return abs(a - b) <= EXACT_TOLERANCE * max(abs(a), abs(b))


def zero_spread(values: list[float]) -> bool:
    return same(min(values), max(values))


@dataclass
class Point:
    commit: str
    time: float
    run: int                       # the commit's first run
    values: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        # sorted() beats np.median's overhead on a few repetitions
        v = sorted(self.values)
        mid = len(v) // 2
        return float(v[mid]) if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


@dataclass
class Run:
    id: int
    commit: str
    time: float


def branch_runs(conn, branch: str, after: int = 0) -> dict[int, Run]:  # noqa: ANN001
    """The branch's runs that are not excluded, id > after."""
    r = schema.runs
    rows = conn.execute(select(r.c.id, r.c.commit_sha, r.c.time).where(and_(
        r.c.branch == branch, r.c.excluded.is_(None), r.c.id > after)))
    return {i: Run(i, c, t) for i, c, t in rows}


def points_of(samples: list[tuple[int, float]], runs: dict[int, Run]) -> list[Point]:
    """Groups (run id, value) samples into points per commit, by time."""
    by_commit: dict[str, Point] = {}
    # a run's samples come together: look its point up once per run
    for run_id, group in groupby(samples, key=itemgetter(0)):
        run = runs.get(run_id)
        if run is None:
            continue
        point = by_commit.get(run.commit)
        if point is None:
            point = by_commit[run.commit] = Point(run.commit, run.time, run.id)
        elif (run.time, run.id) < (point.time, point.run):
            point.time, point.run = run.time, run.id
        point.values.extend(value for _, value in group)
    return sorted(by_commit.values(), key=lambda p: (p.time, p.run))


# Above this many series a load reads the whole samples table in one pass
# (in run order, as it was written) rather than each series through the
# samples_series index, one row fetch per sample.
WHOLE_TABLE_SERIES = 500


def load_samples(conn, series_ids: list[int], runs: dict[int, Run]  # noqa: ANN001
                 ) -> dict[int, list[tuple[int, float]]]:
    """Every sample of the series in runs, per series id, in (run id,
    repetition) order."""
    out: dict[int, list[tuple[int, float]]] = {i: [] for i in series_ids}
    if not series_ids:
        return out
    query = "SELECT series_id, run_id, packed FROM samples"
    order = " ORDER BY run_id"
    with closing(conn.connection.cursor()) as cursor:
        if len(series_ids) > WHOLE_TABLE_SERIES:
            cursor.execute(query + order)
        else:
            marks = ", ".join([_mark(conn)] * len(series_ids))
            cursor.execute(f"{query} WHERE series_id IN ({marks}){order}", series_ids)
        _group(cursor, out, runs)
    return out


def _mark(conn) -> str:  # noqa: ANN001
    """The driver's parameter placeholder."""
    return "?" if conn.dialect.paramstyle == "qmark" else "%s"


def _group(cursor, out: dict, runs: dict) -> None:  # noqa: ANN001
    """Appends the cursor's (series id, run id, packed values) rows of out's
    series and of runs to out as (run id, value), in batches (a fetchall of
    millions would hold them all twice)."""
    while True:
        rows = cursor.fetchmany(100_000)
        if not rows:
            return
        for sid, run_id, packed in rows:
            samples = out.get(sid)
            if samples is not None and run_id in runs:
                samples.extend((run_id, v) for v in schema.unpack(packed))


@dataclass
class Columns:
    """A series' points as arrays, by (time, first run) as points_of orders
    them: each point's median, first run, time, and whether its values are
    one value (zero_spread)."""
    medians: np.ndarray
    runs: np.ndarray
    times: np.ndarray
    flat: np.ndarray


def load_columns(conn, series_ids: list[int], runs: dict[int, Run]  # noqa: ANN001
                 ) -> dict[int, Columns]:
    """What points_of(load_samples(...)) gives per series, computed over all
    samples at once with numpy: a Point per commit of every series, each
    a Python object, cost more than the detector over 2,000 series."""
    rows = _sample_array(conn, series_ids)
    run_ids = np.array(sorted(runs), dtype=np.int64)
    rows = rows[np.isin(rows[:, 1].astype(np.int64), run_ids)]
    if not len(rows):
        empty = np.zeros(0)
        return {sid: Columns(empty, empty.astype(np.int64), empty, empty.astype(bool))
                for sid in series_ids}
    run_index = np.searchsorted(run_ids, rows[:, 1].astype(np.int64))
    commit_of = {c: i for i, c in enumerate(dict.fromkeys(runs[r].commit for r in run_ids))}
    commits = np.array([commit_of[runs[r].commit] for r in run_ids], dtype=np.int64)[run_index]
    times = np.array([runs[r].time for r in run_ids], dtype=np.float64)[run_index]
    sids, run, values = rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64), rows[:, 2]
    # one group per (series, commit): values sorted for the median, and
    # each group's earliest (time, run) for its place
    by_value = np.lexsort((values, commits, sids))
    by_first = np.lexsort((run, times, commits, sids))
    starts = np.flatnonzero(np.r_[True, np.diff(sids[by_value]) != 0]
                            | np.r_[True, np.diff(commits[by_value]) != 0])
    sorted_values = values[by_value]
    medians, flat = _group_medians(sorted_values, starts)
    first = by_first[starts]  # the same groups in the same order
    group_sid, group_time, group_run = sids[first], times[first], run[first]
    order = np.lexsort((group_run, group_time, group_sid))
    bounds = np.searchsorted(group_sid[order], np.array(series_ids, dtype=np.int64), "left")
    ends = np.searchsorted(group_sid[order], np.array(series_ids, dtype=np.int64), "right")
    out = {}
    for sid, a, b in zip(series_ids, bounds, ends):
        at = order[a:b]
        out[sid] = Columns(medians[at], group_run[at], group_time[at], flat[at])
    return out


def _group_medians(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each group's median (Point.median's arithmetic) and whether its
    values are one (zero_spread), values sorted within groups starting at
    starts."""
    ends = np.r_[starts[1:], len(values)]
    counts = ends - starts
    mid = starts + counts // 2
    upper = values[mid]
    lower = values[np.where(counts % 2, mid, mid - 1)]
    medians = np.where(counts % 2, upper, (lower + upper) / 2)
    low, high = values[starts], values[ends - 1]
    flat = np.abs(low - high) <= EXACT_TOLERANCE * np.maximum(np.abs(low), np.abs(high))
    return medians, flat


def _sample_array(conn, series_ids: list[int]) -> np.ndarray:  # noqa: ANN001
    """(series id, run id, value) rows of the series as an n x 3 array, in
    no order (load_columns sorts them): over WHOLE_TABLE_SERIES series a
    plain scan of the table, no index walk and no sort."""
    if not series_ids:
        return np.zeros((0, 3))
    query, params = "SELECT series_id, run_id, packed FROM samples", ()
    if len(series_ids) <= WHOLE_TABLE_SERIES:
        query += f" WHERE series_id IN ({', '.join([_mark(conn)] * len(series_ids))})"
        params = tuple(series_ids)
    keys, blobs = [np.zeros(0)], []
    with closing(conn.connection.cursor()) as cursor:
        cursor.execute(query, params)
        while batch := cursor.fetchmany(100_000):
            keys.append(np.fromiter(chain.from_iterable((s, r, len(p)) for s, r, p in batch),
                                    np.float64, 3 * len(batch)))
            blobs.extend(bytes(p) for _, _, p in batch)
    key = np.concatenate(keys).reshape(-1, 3)
    # each row's series and run, once per value its packed column holds
    counts = key[:, 2].astype(np.int64) // schema.VALUE_BYTES
    values = np.frombuffer(b"".join(blobs), dtype="<f8").astype(np.float64)
    rows = np.column_stack((np.repeat(key[:, 0], counts), np.repeat(key[:, 1], counts), values))
    return rows[np.isin(rows[:, 0].astype(np.int64), np.array(series_ids, dtype=np.int64))]


@dataclass
class SeriesKey:
    id: int
    machine: str
    machine_id: int
    benchmark: str
    metric: str
    backend: str = "native"
    layout_sensitive: bool = False

    @property
    def model(self) -> metrics.Metric:
        return model_of(self.metric, self.backend, self.layout_sensitive)


def all_series(conn) -> dict[int, SeriesKey]:  # noqa: ANN001
    """Every series, with its machine's backend and whether its benchmark
    was ever marked layout sensitive (a series of that flag exists)."""
    s, m = schema.series, schema.machines
    rows = conn.execute(select(s.c.id, m.c.name, m.c.id, s.c.benchmark, s.c.metric, m.c.facts)
                        .select_from(s.join(m, s.c.machine_id == m.c.id))).all()
    backends: dict[int, str] = {}
    flagged = {(r[2], r[3]) for r in rows if r[4] == metrics.LAYOUT_FLAG}
    out = {}
    for sid, name, machine, benchmark, metric, facts in rows:
        if machine not in backends:
            backends[machine] = str(json.loads(facts or "{}").get("backend") or "native")
        out[sid] = SeriesKey(sid, name, machine, benchmark, metric, backends[machine],
                             (machine, benchmark) in flagged)
    return out
