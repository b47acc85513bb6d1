"""A --db that may hold a password is never echoed with it (issue 38, item
3): the seven malformed PostgreSQL URLs the audit tried, a password in the
query, and URLs whose port or host cannot be read, each refused with exit 2
by every verb, no traceback, the password in no output."""

from __future__ import annotations

import pytest

from pmubench.history import store, synthetic
from test_history_sqlite import T0, _values, history

SECRET = "s3cretPW"
MALFORMED = [
    f"postgresql:/u:{SECRET}@h/db",
    f"PostgreSQL://u:{SECRET}@h/db",
    f"postgresql//u:{SECRET}@h/db",
    f"postgresql+psycopg://u:{SECRET}@h/db",
    f"pgsql://u:{SECRET}@h/db",
    f" postgresql://u:{SECRET}@h/db",
    f"postgresql:u:{SECRET}!",
    f"postgresql://u:{SECRET}@h:abc/db",
    f"postgresql://u:{SECRET}@[::1/db",
]


@pytest.mark.parametrize("db", MALFORMED)
def test_a_malformed_url_is_refused_without_its_password(tmp_path, db):
    run = synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))
    for args in (("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", run),
                 ("detect", "--db", db), ("upgrade", "--db", db)):
        done = history(*args, cwd=tmp_path, separate=args[0] == "detect")
        assert done.returncode == 2, (args, done.stderr)
        assert SECRET not in done.stdout + done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        assert "postgresql://USER@HOST:PORT/DBNAME" in done.stderr
    assert list(tmp_path.iterdir()) == [tmp_path / "r.json"]


def test_a_password_in_the_query_is_hidden_too():
    shown = store.shown(f"postgresql://u@127.0.0.1:1/db?password={SECRET}&sslmode=disable")
    assert SECRET not in shown and "sslmode=disable" in shown and "127.0.0.1" in shown
    done = history("detect", "--db", f"postgresql://u@127.0.0.1:1/db?password={SECRET}")
    assert done.returncode == 2 and "cannot connect" in done.stderr
    assert SECRET not in done.stderr


@pytest.mark.parametrize("db", MALFORMED)
def test_shown_never_holds_the_password(db):
    assert SECRET not in store.shown(db)


def test_a_path_is_shown_as_given():
    assert store.shown("/data/history.db") == "/data/history.db"
    assert store.shown("./a@b.db") == "./a@b.db"
