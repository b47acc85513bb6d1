"""history.py in a directory another user can write to (issue 38, items 1,
2 and 4): `report -o` and `--db` never write through a link planted there,
and --db is a file path taken literally. The links are planted by this
user in a temp directory; the one check that needs another user's link
chowns it to nobody, which needs root."""

from __future__ import annotations

import os
import stat

import pytest

from pmubench.history import synthetic
from test_history_sqlite import T0, _ingest_series, _values, history


def _run(tmp_path) -> str:
    return synthetic.write(str(tmp_path / "r.json"), synthetic.run(T0, _values(0)))


def _ingest(db, run):
    return history("ingest", "--db", db, "--commit", "abc1234", "--branch", "main", run)


def _private_file(path, text: str):
    path.write_text(text)
    os.chmod(path, 0o600)
    return path


def test_report_refuses_a_directory_link_and_leaves_its_target_alone(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 3)
    private = tmp_path / "private"
    private.mkdir()
    index = _private_file(private / "index.html", "mine\n")
    (tmp_path / "trend").symlink_to(private)  # planted where the report goes
    done = history("report", "--db", db, "-o", tmp_path / "trend")
    assert done.returncode == 2
    assert "trend" in done.stderr and "not a directory" in done.stderr
    assert index.read_text() == "mine\n" and stat.S_IMODE(index.stat().st_mode) == 0o600
    assert sorted(os.listdir(private)) == ["index.html"]
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".trend.tmp")]


def test_report_replaces_its_own_directory_and_refuses_anothers(tmp_path):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 3)
    out = tmp_path / "trend"
    for _ in range(2):  # an earlier report is replaced whole
        done = history("report", "--db", db, "-o", out)
        assert done.returncode == 0, done.stderr
    assert (out / "index.html").exists() and (out / ".pmubench-report").exists()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep\n")
    done = history("report", "--db", db, "-o", notes)
    assert done.returncode == 2 and "not an earlier" in done.stderr
    assert os.listdir(notes) == ["todo.txt"]


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_report_to_a_place_it_cannot_make_is_exit_2(tmp_path, where):
    db = str(tmp_path / "h.db")
    _ingest_series(tmp_path, db, 3)
    blocker = tmp_path / "file.txt"
    blocker.write_text("x\n")
    out = blocker if where == "a file" else blocker / "trend"
    done = history("report", "--db", db, "-o", out)
    assert done.returncode == 2 and "file.txt" in done.stderr
    assert blocker.read_text() == "x\n"


def test_db_refuses_a_link_to_another_file(tmp_path):
    target = _private_file(tmp_path / "roots-file", "")
    link = tmp_path / "h.db"
    link.symlink_to(target)
    done = _ingest(link, _run(tmp_path))
    assert done.returncode == 2
    assert "h.db" in done.stderr and "symbolic link" in done.stderr
    assert target.read_bytes() == b"" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_db_refuses_a_dangling_link_and_creates_nothing(tmp_path):
    chosen = tmp_path / "chosen-by-another-user"
    link = tmp_path / "h.db"
    link.symlink_to(chosen)
    for args in (("ingest", "--db", link, "--commit", "abc1234", "--branch", "main",
                  _run(tmp_path)), ("detect", "--db", link), ("upgrade", "--db", link)):
        done = history(*args)
        assert done.returncode == 2 and "symbolic link" in done.stderr, args
    assert not os.path.lexists(chosen)


@pytest.mark.skipif(os.geteuid() != 0, reason="chowning a link to another user needs root")
def test_db_refuses_a_directory_link_another_user_owns(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    shared = tmp_path / "shared"
    shared.symlink_to(real)
    os.lchown(shared, 65534, 65534)  # nobody's
    done = _ingest(shared / "h.db", _run(tmp_path))
    assert done.returncode == 2 and "another user owns" in done.stderr
    assert os.listdir(real) == []
    os.lchown(shared, 0, 0)  # this user's own link is followed
    assert _ingest(shared / "h.db", _run(tmp_path)).returncode == 0
    assert os.listdir(real) == ["h.db"]


@pytest.mark.parametrize("db", ["", ":memory:"])
def test_db_that_keeps_nothing_is_refused(tmp_path, db):
    done = _ingest(db, _run(tmp_path))
    assert done.returncode == 2 and "neither a file path" in done.stderr
    assert "run 1" not in done.stdout


def test_db_is_taken_literally(tmp_path):
    db = tmp_path / "q.db?foo=1"
    assert _ingest(db, _run(tmp_path)).returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["q.db?foo=1", "r.json"]
    done = history("detect", "--db", db)
    assert done.returncode == 0 and "0 change points in 6 series" in done.stdout


def test_db_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "h.db"
    os.mkfifo(fifo)
    done = history("detect", "--db", fifo)
    assert done.returncode == 2 and "not a regular file" in done.stderr
