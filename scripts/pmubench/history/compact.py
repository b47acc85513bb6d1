"""Compaction: the history's size plan for years. Each run at a commit
older than the newest `keep` commits of its branch has its repetitions
reduced, per series, to their median (history.py compact --keep-commits N):

    compact(engine, keep=200)   # Compacted(runs=..., values_before=..., ...)

What it keeps, so that detect and judge see what they saw before:
- a series' point at a commit is the median of its runs' repetitions
  (series.Point.median); a run reduced to its median gives the same point
  whenever the commit has one run (the CI recipe's case), and the median
  of the runs' medians when it has several;
- a count of an exact metric whose repetitions are equal keeps one value:
  the series stays exact, every step a change point at its commit, so
  detect finds the same change points on the compacted store;
- a count of an exact metric whose repetitions differ (a PMU count that
  wobbles) keeps its smallest, median and largest: the series stays a
  noisy one, as it was, and its point keeps its median;
- excluded runs are reduced like the others (an exclusion stays per run);
  runs, commits, series, acknowledgements are never removed.

It is one transaction (a killed compaction leaves the history as it was)
and idempotent: a run already reduced has nothing left to reduce, so a
second compaction with the same N changes nothing and says so. Where a
reduced run shares its commit with another run the cached detections are
marked stale (detect recomputes every series: that point's median may have
moved); where every reduced commit has one run, no point moved and the
cache stands, so the CI recipe can compact at every push and detect still
only appends. On SQLite the file is then rebuilt (VACUUM) so that it
shrinks; PostgreSQL reuses the freed space.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from pmubench.history import detect, schema
from pmubench.history.series import all_series, same

CHUNK = 500  # runs read and rewritten at a time


@dataclass
class Compacted:
    keep: int
    runs: int = 0                      # runs whose repetitions were reduced
    commits: int = 0                   # their commits
    values_before: int = 0             # all values of the history
    values_after: int = 0
    branches: dict[str, int] = field(default_factory=dict)   # branch -> runs reduced
    stale: bool = False                # a commit of several runs moved: detect recomputes


def old_runs(conn, keep: int) -> tuple[list[tuple[int, str, str]], set]:  # noqa: ANN001
    """(run id, branch, commit) of every run whose commit is not among the
    newest `keep` commits of its branch (a commit's time: its earliest run's,
    as series.points_of orders them), and the (branch, commit) pairs that
    have more than one run."""
    r = schema.runs
    rows = conn.execute(select(r.c.id, r.c.branch, r.c.commit_sha, r.c.time)).all()
    first: dict[tuple[str, str], tuple[float, int]] = {}
    shared = set()
    for rid, branch, commit, t in rows:
        key = (branch, commit)
        if key in first:
            shared.add(key)
        first[key] = min(first.get(key, (t, rid)), (t, rid))
    newest: dict[str, list[tuple[tuple[float, int], str]]] = {}
    for (branch, commit), when in first.items():
        newest.setdefault(branch, []).append((when, commit))
    kept = {(b, c) for b, commits in newest.items()
            for _, c in sorted(commits)[max(0, len(commits) - keep):]} if keep else set()
    return sorted((rid, b, c) for rid, b, c, _ in rows if (b, c) not in kept), shared


def reduced(values: list[float], exact: bool) -> list[float]:
    """A run's repetitions of one series as compaction keeps them: the
    median; an exact metric's unequal ones, smallest, median and largest."""
    v = sorted(values)
    mid = len(v) // 2
    median = v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
    if len(v) <= 1 or same(v[0], v[-1]):
        return [median] if v else []
    if exact:
        return v if len(v) <= 3 else [v[0], median, v[-1]]
    return [median]


def _rewrite(conn, run_ids: list[int], exact: dict[int, bool]) -> set[int]:  # noqa: ANN001
    """Reduces the runs' samples; returns the runs that changed."""
    s = schema.samples
    rows = conn.execute(select(s.c.run_id, s.c.series_id, s.c.packed)
                        .where(s.c.run_id.in_(run_ids))).all()
    groups = {(run, sid): schema.unpack(packed) for run, sid, packed in rows}
    kept = {key: reduced(values, exact.get(key[1], False)) for key, values in groups.items()}
    changed = {run for (run, sid), values in groups.items() if len(kept[(run, sid)]) < len(values)}
    if changed:
        conn.execute(s.delete().where(s.c.run_id.in_(sorted(changed))))
        conn.execute(s.insert(), [{"run_id": run, "series_id": sid, "packed": schema.pack(values)}
                                  for (run, sid), values in kept.items() if run in changed])
    return changed


def _count(conn) -> int:  # noqa: ANN001
    return schema.value_count(conn)


def compact(engine, keep: int) -> Compacted:  # noqa: ANN001
    """Reduces the repetitions of every run older than the newest `keep`
    commits of its branch, in one transaction; what it changed."""
    done = Compacted(keep)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # not beside a detect or another compact
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(4242002)")
        exact = {sid: k.model.exact for sid, k in all_series(conn).items()}
        done.values_before = _count(conn)
        old, shared = old_runs(conn, keep)
        where = {rid: (branch, commit) for rid, branch, commit in old}
        changed: set[int] = set()
        for i in range(0, len(old), CHUNK):
            changed |= _rewrite(conn, [rid for rid, _, _ in old[i:i + CHUNK]], exact)
        done.values_after = _count(conn)
        done.runs = len(changed)
        done.commits = len({where[rid] for rid in changed})
        for rid in changed:
            done.branches[where[rid][0]] = done.branches.get(where[rid][0], 0) + 1
        done.stale = any(where[rid] in shared for rid in changed)
        if done.stale:
            detect.bump_generation(conn)
    if changed and engine.dialect.name == "sqlite":
        _vacuum(engine)
    return done


def _vacuum(engine) -> None:  # noqa: ANN001
    """Rebuilds the SQLite file without the freed pages (VACUUM runs
    outside a transaction; SQLite makes it atomic itself)."""
    raw = engine.raw_connection()
    try:
        raw.cursor().execute("VACUUM")
    finally:
        raw.close()
