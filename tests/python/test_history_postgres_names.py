"""Names on a real PostgreSQL (issue 38, items 7 and 9): the limit SQLite
gets is the one PostgreSQL gets, checked before writing, so a name
PostgreSQL cannot store (a NUL, a lone surrogate, one longer than its
columns or its b-tree index) is refused by name, exit 2, nothing written;
a name at the limit is kept. The cluster is the private one
test_history_postgres starts."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from pmubench.history import schema, synthetic
from test_history_postgres import cluster  # noqa: F401 - the fixture
from test_history_sqlite import T0, history


def _ingest(tmp_path, db: str, benchmark: str, metric: str = "real_time"):
    run = synthetic.run(T0, {benchmark: {metric: [1.0, 1.1]}}, backend="native")
    path = synthetic.write(str(tmp_path / "r.json"), run)
    return history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", path)


def _runs(db: str) -> int:
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            if not conn.execute(text("select to_regclass('runs')")).scalar():
                return 0
            return conn.execute(text("select count(*) from runs")).scalar()
    finally:
        engine.dispose()


@pytest.mark.parametrize("name", ["nul \0 name", "surrogate \udc80 name",
                                  "x" * (schema.MAX_NAME + 1), "y" * 10_000_000],
                         # Short ids: pytest puts the test's id in the
                         # environment (PYTEST_CURRENT_TEST), and a 10 MB one
                         # makes every process started in it fail with E2BIG.
                         ids=["nul", "surrogate", "over-max", "ten-megabytes"])
def test_a_name_postgresql_cannot_store_is_refused_by_name(tmp_path, cluster, name):  # noqa: F811
    db = cluster.createdb(f"names_{abs(hash(name[:40])) % 10**8}")
    for benchmark, metric in ((name, "real_time"), ("BM_A", name)):
        done = _ingest(tmp_path, db, benchmark, metric)
        assert done.returncode == 2, done.stderr
        assert "r.json" in done.stderr and "run again" not in done.stderr
        assert ("metric" in done.stderr) == (metric == name)
    assert _runs(db) == 0


def test_a_name_at_the_limit_is_kept(tmp_path, cluster):  # noqa: F811
    db = cluster.createdb("names_at_limit")
    done = _ingest(tmp_path, db, "é" * schema.MAX_NAME, "m" * schema.MAX_NAME)
    assert done.returncode == 0, done.stderr
    assert _runs(db) == 1
