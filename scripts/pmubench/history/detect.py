"""Change points of every series on a branch, kept in detect_cache so that
after one new run only the series it touched are looked at again, and those
only at their tail (edivisive.detect_appended).

An exact series (an exact count of the metric model, verdicts/metrics.py,
every point's repetitions equal) gets every step as a change point at its
commit, p_value None: its values do not vary within a level, so any
difference is a code change, and a test of significance on zero variance
means nothing. A series the model never judges (a simulator's times, the
machine's info counts) gets none: it is kept and drawn, never judged. Every
other series goes to the E-divisive detector over its per-commit medians."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import and_, delete, select

from pmubench.history import edivisive, schema
from pmubench.history.series import (EXACT_TOLERANCE, Columns, Point, SeriesKey, all_series,
                                     branch_runs, load_columns, points_of, zero_spread)

GENERATION_KEY = "exclusion_generation"
# Bumped when what detection finds changes for the same data (the metric
# model): a cached state of another version is computed again.
MODEL_VERSION = 2


@dataclass(frozen=True)
class Params:
    window: int = 30
    max_pvalue: float = 0.001
    min_magnitude: float = 0.0
    faithful: bool = False             # the reference method (edivisive.py)

    def as_list(self) -> list:
        """edivisive.detect's arguments after the series; also the cache's
        key, so a state of other parameters is recomputed."""
        return [self.window, self.max_pvalue, self.min_magnitude, self.faithful]

    def cache_key(self) -> list:
        """What a cached state must have been computed with."""
        return self.as_list() + [MODEL_VERSION]


@dataclass
class State:
    """What one detection of a series saw and found."""
    params: list
    exact: bool
    last_run: int
    last_time: float
    medians: np.ndarray
    runs: np.ndarray                   # each point's first run id
    weak: list[int] = field(default_factory=list)
    # (index, p_value or None, mean before, mean after, kind): kind "step"
    # (a new level) or "spike" (one or two commits away that returned)
    changes: list[tuple] = field(default_factory=list)

    def encode(self) -> bytes:
        head = json.dumps({"params": self.params, "exact": self.exact,
                           "last_run": self.last_run, "last_time": self.last_time,
                           "weak": self.weak, "changes": self.changes,
                           "n": len(self.medians)}).encode()
        body = self.medians.astype("<f8").tobytes() + self.runs.astype("<i8").tobytes()
        return zlib.compress(head + b"\n" + body, 1)

    @staticmethod
    def decode(blob: bytes) -> "State":
        raw = zlib.decompress(blob)
        head, body = raw.split(b"\n", 1)
        h = json.loads(head)
        n = h["n"]
        medians = np.frombuffer(body[:8 * n], dtype="<f8")
        runs = np.frombuffer(body[8 * n:16 * n], dtype="<i8")
        return State(h["params"], h["exact"], h["last_run"], h["last_time"],
                     medians, runs, h["weak"], [tuple(c) for c in h["changes"]])


def exact_changes(medians: np.ndarray) -> list[tuple]:
    """Every step of an exact series: (index, None, before, after, "step");
    series.same over all neighbours at once."""
    before, after = medians[:-1], medians[1:]
    equal = np.abs(before - after) <= EXACT_TOLERANCE * np.maximum(np.abs(before),
                                                                   np.abs(after))
    return [(int(i), None, float(medians[i - 1]), float(medians[i]), "step")
            for i in np.flatnonzero(~equal) + 1]


def _noisy_changes(points: list[edivisive.ChangePoint]) -> list[tuple]:
    return [(c.index, c.p_value, c.mean_before, c.mean_after, c.kind) for c in points]


def full_state(points: list[Point], key: SeriesKey, params: Params) -> State:
    return columns_state(Columns(
        np.array([p.median for p in points], dtype=np.float64),
        np.array([p.run for p in points], dtype=np.int64),
        np.array([p.time for p in points], dtype=np.float64),
        np.array([zero_spread(p.values) for p in points], dtype=bool)), key, params)


def columns_state(columns: Columns, key: SeriesKey, params: Params) -> State:
    """A detection from scratch of a series' points (series.Columns)."""
    medians, runs = columns.medians, columns.runs.astype(np.int64)
    exact = key.model.exact and bool(columns.flat.all())
    state = State(params.cache_key(), exact, int(runs.max(initial=0)),
                  float(columns.times.max(initial=0.0)), medians, runs)
    if exact:
        state.changes = exact_changes(medians)
    elif key.model.judged and len(medians) >= 2:
        found, state.weak = edivisive.detect(medians, *params.as_list())
        state.changes = _noisy_changes(found)
    return state


def appended_state(old: State, new: list[Point], last_run: int, params: Params,
                   key: SeriesKey) -> State:
    """old with points appended (each at a commit after old's last)."""
    medians = np.concatenate([old.medians, [p.median for p in new]])
    runs = np.concatenate([old.runs, [p.run for p in new]]).astype(np.int64)
    exact = old.exact and key.model.exact and all(zero_spread(p.values) for p in new)
    state = State(params.cache_key(), exact, last_run,
                  max([old.last_time] + [p.time for p in new]), medians, runs)
    if exact:
        state.changes = exact_changes(medians)
    elif not key.model.judged:
        state.changes = []
    elif old.exact or len(old.medians) < 2:  # no weak points to start from
        found, state.weak = edivisive.detect(medians, *params.as_list())
        state.changes = _noisy_changes(found)
    elif len(medians) >= 2:
        found, state.weak = edivisive.detect_appended(
            medians, old.weak, len(old.medians), *params.as_list())
        state.changes = _noisy_changes(found)
    return state


@dataclass
class Change:
    key: SeriesKey
    index: int
    commit: str
    time: float
    before: float
    after: float
    p_value: float | None
    kind: str = "step"

    @property
    def change(self) -> float:
        return self.after / self.before - 1 if self.before else float("inf")


@dataclass
class Refreshed:
    states: dict                       # series id -> State
    keys: dict                         # series id -> SeriesKey
    runs: dict                         # run id -> series.Run
    recomputed: int = 0
    appended: int = 0

    def changes(self) -> list[Change]:
        out = []
        for sid, state in self.states.items():
            for index, p, before, after, kind in state.changes:
                run = self.runs.get(int(state.runs[index]))
                if run is not None:
                    out.append(Change(self.keys[sid], index, run.commit, run.time,
                                      before, after, p, kind))
        return sorted(out, key=lambda c: (-c.time, c.key.machine, c.key.benchmark,
                                          c.key.metric))


def generation(conn) -> int:  # noqa: ANN001
    m = schema.meta
    row = conn.execute(select(m.c.value).where(m.c.key == GENERATION_KEY)).first()
    return int(row[0]) if row else 0


def bump_generation(conn) -> None:  # noqa: ANN001
    """Makes every cached detection stale (a run was excluded)."""
    m = schema.meta
    value = generation(conn) + 1
    conn.execute(delete(m).where(m.c.key == GENERATION_KEY))
    conn.execute(m.insert().values(key=GENERATION_KEY, value=value))


def _load_cache(conn, branch: str, gen: int, params: Params) -> dict:  # noqa: ANN001
    c = schema.detect_cache
    rows = conn.execute(select(c.c.series_id, c.c.state).where(and_(
        c.c.branch == branch, c.c.generation == gen)))
    states = {sid: State.decode(blob) for sid, blob in rows}
    return {sid: st for sid, st in states.items() if st.params == params.cache_key()}


def _new_samples(conn, run_ids: list[int]) -> dict[int, list]:  # noqa: ANN001
    """(run id, value) of the given runs, per series id."""
    s = schema.samples
    out: dict[int, list] = {}
    for i in range(0, len(run_ids), 500):
        rows = conn.execute(select(s.c.series_id, s.c.run_id, s.c.packed)
                            .where(s.c.run_id.in_(run_ids[i:i + 500]))
                            .order_by(s.c.run_id)).all()
        for sid, run_id, packed in rows:
            out.setdefault(sid, []).extend((run_id, v) for v in schema.unpack(packed))
    return out


def _plan(cached: dict, keys: dict, fresh: dict, runs: dict) -> tuple[list, dict]:
    """Which series need a full detection, which an append (series id ->
    new points); the others keep their cached state."""
    full, append = [], {}
    distinct: dict[bytes, bool] = {}   # most series share their runs: one check each
    for sid in keys:
        state = cached.get(sid)
        if state is None:
            full.append(sid)
            continue
        if sid not in fresh:
            continue
        new = points_of(fresh[sid], runs)
        old_commits = _commits(state.runs, runs, distinct)
        if old_commits is not None and all(
                p.time >= state.last_time and p.commit not in old_commits for p in new):
            append[sid] = new
        else:
            full.append(sid)
    return full, append


def _commits(points: np.ndarray, runs: dict, memo: dict) -> set | None:
    """The commits of a state's points (each point's first run), or None
    when one is no longer on the branch or two are one commit; memo holds
    the answer per distinct points array."""
    key = points.tobytes()
    if key not in memo:
        commits = {runs[int(r)].commit for r in points if int(r) in runs}
        memo[key] = commits if len(commits) == len(points) else None
    return memo[key]


def _store(conn, branch: str, gen: int, states: dict) -> None:  # noqa: ANN001
    c = schema.detect_cache
    ids = list(states)
    for i in range(0, len(ids), 500):
        conn.execute(delete(c).where(and_(c.c.branch == branch,
                                          c.c.series_id.in_(ids[i:i + 500]))))
    if ids:
        conn.execute(c.insert(), [{"series_id": sid, "branch": branch,
                                   "last_run": st.last_run, "generation": gen,
                                   "state": st.encode()} for sid, st in states.items()])


def refresh(engine, branch: str, params: Params) -> Refreshed:  # noqa: ANN001
    """Brings the cached detections of the branch up to date, in one
    transaction, and returns every series' state."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(4242002)")
        gen = generation(conn)
        keys = all_series(conn)
        runs = branch_runs(conn, branch)
        d = schema.detected_runs
        seen = {r for (r,) in conn.execute(select(d.c.run_id).where(d.c.branch == branch))}
        new_runs = sorted(set(runs) - seen)
        cached = _load_cache(conn, branch, gen, params)
        fresh = _new_samples(conn, new_runs) if cached and new_runs else {}
        full, append = _plan(cached, keys, fresh, runs)
        last = max(runs, default=0)
        updated = {sid: appended_state(cached[sid], new, last, params, keys[sid])
                   for sid, new in append.items()}
        columns = load_columns(conn, full, runs)
        for sid in full:
            updated[sid] = columns_state(columns[sid], keys[sid], params)
            updated[sid].last_run = last
        _store(conn, branch, gen, updated)
        if new_runs:
            conn.execute(d.insert(), [{"branch": branch, "run_id": r} for r in new_runs])
        states = {**cached, **updated}
    return Refreshed({s: states[s] for s in keys}, keys, runs, len(full), len(append))
