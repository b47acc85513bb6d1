"""A series' points: one per commit on a branch, ordered by commit time
(the earliest time of the commit's runs), each with every repetition of
every run at that commit that is not excluded."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_, select

from pmubench.runs import benchjson
from pmubench.history import schema

# Counts that are exact where a PMU counts them (user space): a step in
# them is a code change. Every count a simulator wrote is exact too.
INSTRUCTION_CLASS = frozenset({"instructions", "branches", "branch-instructions",
                               "inst_retired.any", "inst_retired", "br_inst_retired.all_branches"})
# Relative difference below which two counts are one value (float noise of
# a per-iteration division).
EXACT_TOLERANCE = 1e-12


def exact_class(metric: str) -> bool:
    """True for a metric whose series can be exact (zero variance within
    a level): simulated counts, and instruction-class PMU counts."""
    return benchjson.is_simulated(metric) or benchjson.base_name(metric) in INSTRUCTION_CLASS


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
    for run_id, value in samples:
        run = runs.get(run_id)
        if run is None:
            continue
        point = by_commit.get(run.commit)
        if point is None:
            point = by_commit[run.commit] = Point(run.commit, run.time, run.id)
        elif (run.time, run.id) < (point.time, point.run):
            point.time, point.run = run.time, run.id
        point.values.append(value)
    return sorted(by_commit.values(), key=lambda p: (p.time, p.run))


def load_samples(conn, series_ids: list[int], runs: dict[int, Run]  # noqa: ANN001
                 ) -> dict[int, list[tuple[int, float]]]:
    """Every sample of the series in runs, per series id."""
    s = schema.samples
    out: dict[int, list[tuple[int, float]]] = {i: [] for i in series_ids}
    for chunk in range(0, len(series_ids), 500):
        ids = series_ids[chunk:chunk + 500]
        rows = conn.execute(select(s.c.series_id, s.c.run_id, s.c.value)
                            .where(s.c.series_id.in_(ids)).order_by(s.c.run_id, s.c.repetition)).all()
        for sid, run_id, value in rows:
            if run_id in runs:
                out[sid].append((run_id, value))
    return out


@dataclass
class SeriesKey:
    id: int
    machine: str
    machine_id: int
    benchmark: str
    metric: str


def all_series(conn) -> dict[int, SeriesKey]:  # noqa: ANN001
    s, m = schema.series, schema.machines
    rows = conn.execute(select(s.c.id, m.c.name, m.c.id, s.c.benchmark, s.c.metric)
                        .select_from(s.join(m, s.c.machine_id == m.c.id)))
    return {r[0]: SeriesKey(*r) for r in rows}
