"""scripts/history.py on a real PostgreSQL cluster the test starts:
initdb in a private temp directory as an unprivileged user (nobody, when
the tests run as root), a unix socket there, stopped and removed after.
Ingest and detect as on SQLite; several ingests at once lose and duplicate
nothing; a refusing server is exit 2."""

from __future__ import annotations

import json
import struct
import subprocess

import pytest

from pmubench.history import ingest, pgcluster, store, synthetic
from test_history_sqlite import DAY, T0, _sha, _values, history
from test_history_upgrade import V1_SAMPLES

@pytest.fixture(scope="module")
def cluster():
    why = pgcluster.available()
    if why:
        pytest.skip(why)
    cluster = pgcluster.Cluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def test_ingest_and_detect_on_postgresql(tmp_path, cluster):
    db = cluster.createdb("detect_test")
    paths = [synthetic.write(str(tmp_path / f"r{i}.json"),
                             synthetic.run(T0 + i * DAY, _values(i))) for i in range(14)]
    done = history("ingest", "--db", db, "--commit", _sha(0), "--branch", "main", paths[0])
    assert done.returncode == 0, done.stderr
    # the other runs through one process: the command line's own code, faster
    engine = store.open_store(db)
    for i in range(1, 14):
        prepared = ingest.prepare(str(tmp_path / f"r{i}.json"))
        assert ingest.write(engine, prepared, _sha(i), "main", prepared.time, None)
    engine.dispose()
    done = history("detect", "--db", db, "--format", "json")
    assert done.returncode == 0, done.stderr
    points = json.loads(done.stdout)["change_points"]
    # real_time steps too: a simulator's times get no change point
    assert {(p["metric"], p["commit"]) for p in points} == {
        ("callgrind/instructions/", _sha(8))}
    # one more run: detect appends to every series it touches, reads no other
    more = synthetic.write(str(tmp_path / "r14.json"), synthetic.run(T0 + 14 * DAY, _values(14)))
    assert history("ingest", "--db", db, "--commit", _sha(14), "--branch", "main",
                   more).returncode == 0
    again = json.loads(history("detect", "--db", db, "--format", "json").stdout)
    assert (again["recomputed"], again["appended"]) == (0, 6)
    assert {(p["metric"], p["commit"]) for p in again["change_points"]} == {
        (p["metric"], p["commit"]) for p in points}
    report = history("report", "--db", db, "-o", tmp_path / "trend")
    assert report.returncode == 0 and (tmp_path / "trend" / "index.html").exists()


def test_concurrent_ingests_lose_and_duplicate_nothing(tmp_path, cluster):
    db = cluster.createdb("concurrent_test")  # empty: the ingests race to make tables too
    paths = [synthetic.write(str(tmp_path / f"c{i}.json"),
                             synthetic.run(T0 + i * DAY, _values(i))) for i in range(3)]
    procs = [subprocess.Popen([*_history_cmd(), "ingest", "--db", db, "--commit", _sha(i % 3),
                               "--branch", "main", paths[i % 3]],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(5)]  # two files twice
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert all(code == 0 for _, _, code in results), results
    import sqlalchemy
    engine = sqlalchemy.create_engine(db)
    with engine.connect() as conn:
        count = lambda sql: conn.exec_driver_sql(sql).scalar()  # noqa: E731
        assert count("select count(*) from runs") == 3
        assert count("select count(*) from machines") == 1
        assert count("select count(*) from series") == 6
        assert count("select sum(length(packed)) / 8 from samples") == 3 * 6 * 3
    engine.dispose()
    assert sum("already in" in out for out, _, _ in results) == 2


def _history_cmd() -> list[str]:
    from test_history_sqlite import HISTORY, PYTHON
    return [PYTHON, HISTORY]


def test_a_refusing_server_is_exit_2(cluster):
    refused = cluster.url("postgres").replace("bench@", "nosuchrole:pw123@")
    done = history("detect", "--db", refused)
    assert done.returncode == 2
    assert "nosuchrole" in done.stderr and "cannot connect" in done.stderr
    assert "pw123" not in done.stderr


def _packed_rows(conn) -> list[tuple]:  # noqa: ANN001 - a SQLAlchemy Connection
    return [(r, s, struct.unpack(f"<{len(p) // 8}d", bytes(p))) for r, s, p in
            conn.exec_driver_sql("select run_id, series_id, packed from samples order by 1, 2")]


def test_a_version_1_history_upgrades_on_postgresql(tmp_path, cluster):
    """As test_history_upgrade.py on SQLite: version 1's row per value
    becomes a row per run and series, the same values in the same order."""
    db = cluster.createdb("upgrade_test")
    for i in range(4):
        path = synthetic.write(str(tmp_path / f"u{i}.json"),
                               synthetic.run(T0 + i * DAY, _values(i, reps=2 + i % 3)))
        assert history("ingest", "--db", db, "--commit", _sha(i), "--branch", "main",
                       path).returncode == 0
    import sqlalchemy
    engine = sqlalchemy.create_engine(db)
    with engine.begin() as conn:
        packed = _packed_rows(conn)
        rows = [(r, s, i, v) for r, s, values in packed for i, v in enumerate(values)]
        conn.exec_driver_sql("drop table samples")
        conn.exec_driver_sql(V1_SAMPLES)
        conn.exec_driver_sql("create index samples_series on samples (series_id, run_id)")
        conn.exec_driver_sql("create index samples_run on samples (run_id)")
        conn.exec_driver_sql("insert into samples values (%s, %s, %s, %s)", rows[::-1])
        conn.exec_driver_sql("update schema_version set version = 1")
    done = history("upgrade", "--db", db)
    assert done.returncode == 0, done.stderr
    with engine.connect() as conn:
        assert _packed_rows(conn) == packed and len(rows) == 6 * (2 + 3 + 4 + 2)
        assert conn.exec_driver_sql("select version from schema_version").scalar() == 2
    engine.dispose()
