"""`history.py upgrade` of a schema version 1 history (a samples row per
repetition) to version 2 (a row per run and series, its repetitions packed):
the same values in the same order, and detect's answer unchanged."""

from __future__ import annotations

import sqlite3
import struct

from pmubench.history import synthetic
from test_history_sqlite import DAY, T0, VALUES, _detect, _sha, _values, history

# Version 1's samples table, as its schema.py made it on SQLite.
V1_SAMPLES = """
CREATE TABLE samples (
    run_id INTEGER NOT NULL, series_id INTEGER NOT NULL,
    repetition INTEGER NOT NULL, value FLOAT NOT NULL,
    FOREIGN KEY(run_id) REFERENCES runs (id),
    FOREIGN KEY(series_id) REFERENCES series (id))"""


def _rows(conn) -> list[tuple]:
    """(run, series, every value in repetition order) of a version 2 history."""
    return [(r, s, struct.unpack(f"<{len(p) // 8}d", p)) for r, s, p in
            conn.execute("select run_id, series_id, packed from samples order by 1, 2")]


def _to_v1(db: str) -> list[tuple]:
    """Rewrites a version 2 history as version 1 kept it, a row per value;
    returns its rows (run, series, repetition, value)."""
    with sqlite3.connect(db) as conn:
        rows = [(r, s, i, v) for r, s, values in _rows(conn) for i, v in enumerate(values)]
        conn.execute("drop table samples")
        conn.execute(V1_SAMPLES)
        conn.execute("create index samples_series on samples (series_id, run_id)")
        conn.execute("create index samples_run on samples (run_id)")
        # stored out of order: the upgrade orders by repetition, not by rowid
        conn.executemany("insert into samples values (?, ?, ?, ?)", reversed(rows))
        conn.execute("update schema_version set version = 1")
    return rows


def _history(tmp_path) -> str:
    """Six runs, 2 to 4 repetitions each (each repetition of a time a
    different value), a step at the fourth."""
    db = str(tmp_path / "h.db")
    for i in range(6):
        values = _values(i, step_at=3, reps=2 + i % 3, backend="perf_event")
        path = synthetic.write(str(tmp_path / f"run{i}.json"),
                               synthetic.run(T0 + i * DAY, values, "perf_event"))
        done = history("ingest", "--db", db, "--commit", _sha(i), "--branch", "main", path)
        assert done.returncode == 0, done.stderr
    return db


def test_a_version_1_history_upgrades_to_the_same_values_and_change_points(tmp_path):
    db = _history(tmp_path)
    with sqlite3.connect(db) as conn:
        packed = _rows(conn)
    answer = _detect(db)
    v1_rows = _to_v1(db)
    # every series 2 + 3 + 4 + 2 + 3 + 4 values
    assert len(v1_rows) == sum(len(v) for _, _, v in packed) == \
        18 * len({s for _, s, _ in packed})
    refused = history("detect", "--db", db)
    assert refused.returncode == 2 and "history.py upgrade" in refused.stderr
    done = history("upgrade", "--db", db)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select version from schema_version").fetchall() == [(2,)]
        assert _rows(conn) == packed
        assert conn.execute(VALUES).fetchone() == (len(v1_rows),)
        tables = {n for n, in conn.execute("select name from sqlite_master")}
    assert "samples_v1" not in tables and "samples_run" not in tables
    again = _detect(db)
    assert again["change_points"] == answer["change_points"] != []
    assert "nothing to do" in history("upgrade", "--db", db).stdout
