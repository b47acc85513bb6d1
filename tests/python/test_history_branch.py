"""The CI recipe's store of the history on a git branch never loses it
(issue 44, item 3): scripts/history_branch.py against real git remotes
(bare repositories in a temp directory): a remote that cannot be read fails
the fetch and nothing is stored, a branch that does not exist starts a new
history, store pushes only over the commit fetch saw and never with fewer
runs or past the size limit, and gaps lists the commits no run recorded."""

from __future__ import annotations

import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from pmubench.history import synthetic  # noqa: E402

PY = "/usr/bin/python3"
TOOL = str(REPO_ROOT / "scripts" / "history_branch.py")
HISTORY = str(REPO_ROOT / "scripts" / "history.py")
T0 = 1.7e9


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))
    return done.stdout.strip()


def tool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([PY, TOOL, *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def place(tmp_path: Path) -> dict:
    """A bare remote and a checkout with three commits (the project)."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    work = tmp_path / "work"
    work.mkdir()
    git("init", "-q", "-b", "main", cwd=work)
    commits = []
    for i in range(5):
        (work / "f").write_text(str(i))
        git("add", "f", cwd=work)
        git("commit", "-q", "-m", f"change {i}", cwd=work)
        commits.append(git("rev-parse", "HEAD", cwd=work))
    return {"remote": str(remote), "work": work, "commits": commits, "tmp": tmp_path}


def ingest(place: dict, db: Path, i: int) -> None:
    run = synthetic.write(str(place["tmp"] / f"run{i}.json"), synthetic.run(
        T0 + i * 3600, {"BM_A": {"callgrind/instructions/": [1000.0 + i] * 3}}))
    done = subprocess.run([PY, HISTORY, "ingest", "--db", str(db), "--branch", "main",
                           "--commit", place["commits"][i], run],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def runs_on_branch(place: dict) -> int:
    """The runs in the history the remote's branch holds now."""
    out = place["tmp"] / "check"
    out.mkdir(exist_ok=True)
    blob = subprocess.run(["git", "--git-dir", place["remote"], "cat-file", "blob",
                           "refs/heads/bench-history:history.db.xz"], capture_output=True,
                          check=True).stdout
    (out / "h.db").write_bytes(lzma.decompress(blob))
    import sqlite3
    with sqlite3.connect(out / "h.db") as conn:
        return conn.execute("SELECT count(*) FROM runs").fetchone()[0]


def record(place: dict, i: int, *store_args: str) -> subprocess.CompletedProcess:
    """The workflow's steps for commit i in a fresh job: fetch, ingest, store."""
    job = place["tmp"] / f"job{i}"
    job.mkdir()
    db = job / "history.db"
    fetched = tool("fetch", "--remote", place["remote"], "--db", str(db), cwd=place["work"])
    assert fetched.returncode == 0, fetched.stderr
    ingest(place, db, i)
    return tool("store", "--remote", place["remote"], "--db", str(db), "-m", f"at {i}",
                *store_args, cwd=place["work"])


def test_a_new_history_then_one_run_more_each_push(place):
    first = record(place, 0)
    assert first.returncode == 0, first.stderr
    assert runs_on_branch(place) == 1
    second = record(place, 1)
    assert second.returncode == 0, second.stderr
    assert "stored 2 runs" in second.stdout
    assert runs_on_branch(place) == 2


def test_a_fetch_that_fails_fails_the_job_and_leaves_nothing(place):
    assert record(place, 0).returncode == 0
    db = place["tmp"] / "new.db"
    bad = tool("fetch", "--remote", str(place["tmp"] / "no-such.git"), "--db", str(db),
               cwd=place["work"])
    assert bad.returncode == 1
    assert "cannot read" in bad.stderr and "nothing was fetched" in bad.stderr
    assert not db.exists() and not Path(f"{db}.fetched.json").exists()
    # A store step run all the same (a workflow without `set -e`) refuses.
    ingest(place, db, 1)
    stored = tool("store", "--remote", place["remote"], "--db", str(db), "-m", "x",
                  cwd=place["work"])
    assert stored.returncode == 1 and "run `history_branch.py fetch` first" in stored.stderr
    assert runs_on_branch(place) == 1


def test_a_branch_without_the_database_is_not_a_new_history(place):
    git("push", "-q", place["remote"], "HEAD:refs/heads/bench-history", cwd=place["work"])
    done = tool("fetch", "--remote", place["remote"], "--db", str(place["tmp"] / "h.db"),
                cwd=place["work"])
    assert done.returncode == 1 and "neither history.db.xz nor history.db" in done.stderr


def test_a_branch_an_older_recipe_stored_unpacked_is_read_and_kept(place):
    old = place["tmp"] / "old"
    old.mkdir()
    ingest(place, old / "history.db", 0)
    git("init", "-q", "-b", "bench-history", cwd=old)
    git("add", "history.db", cwd=old)
    git("commit", "-q", "-m", "old recipe", cwd=old)
    git("push", "-q", place["remote"], "bench-history", cwd=old)
    second = record(place, 1)
    assert second.returncode == 0, second.stderr
    assert runs_on_branch(place) == 2


def test_store_never_pushes_fewer_runs_unless_asked(place):
    assert record(place, 0).returncode == 0
    assert record(place, 1).returncode == 0
    job = place["tmp"] / "shrink"
    job.mkdir()
    db = job / "history.db"
    assert tool("fetch", "--remote", place["remote"], "--db", str(db),
                cwd=place["work"]).returncode == 0
    db.unlink()
    ingest(place, db, 2)       # a one-run database, as after a lost fetch
    refused = tool("store", "--remote", place["remote"], "--db", str(db), "-m", "x",
                   cwd=place["work"])
    assert refused.returncode == 1
    assert "holds 1 runs, the history fetched from the branch 2" in refused.stderr
    assert runs_on_branch(place) == 2
    allowed = tool("store", "--remote", place["remote"], "--db", str(db), "-m", "x",
                   "--allow-shrink", cwd=place["work"])
    assert allowed.returncode == 0 and "1 fewer runs" in allowed.stdout
    assert runs_on_branch(place) == 1


def test_store_never_overwrites_a_concurrent_writer(place):
    assert record(place, 0).returncode == 0
    slow = place["tmp"] / "slow"
    slow.mkdir()
    db = slow / "history.db"
    assert tool("fetch", "--remote", place["remote"], "--db", str(db),
                cwd=place["work"]).returncode == 0
    assert record(place, 1).returncode == 0          # another job stores first
    ingest(place, db, 2)
    late = tool("store", "--remote", place["remote"], "--db", str(db), "-m", "late",
                cwd=place["work"])
    assert late.returncode == 1 and "nothing was overwritten" in late.stderr
    assert runs_on_branch(place) == 2


def test_a_database_past_the_limit_is_refused_with_the_plan(place):
    job = place["tmp"] / "big"
    job.mkdir()
    db = job / "history.db"
    assert tool("fetch", "--remote", place["remote"], "--db", str(db),
                cwd=place["work"]).returncode == 0
    ingest(place, db, 0)
    done = tool("store", "--remote", place["remote"], "--db", str(db), "-m", "x",
                "--max-mb", "0.001", cwd=place["work"])
    assert done.returncode == 1
    assert "bytes a value" in done.stderr and "PostgreSQL" in done.stderr
    listed = subprocess.run(["git", "--git-dir", place["remote"], "branch"],
                            capture_output=True, text=True, check=True)
    assert listed.stdout == ""


def test_gaps_lists_the_commits_without_a_run(place):
    db = place["tmp"] / "h.db"
    ingest(place, db, 0)
    ingest(place, db, 4)
    done = tool("gaps", "--db", str(db), "--branch", "main", "--head", place["commits"][4],
                cwd=place["work"])
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stdout.splitlines()[1:]]
    assert listed == place["commits"][3:0:-1]
    assert "change 2" in done.stdout
    none = tool("gaps", "--db", str(db), "--branch", "main", "--head", place["commits"][0],
                cwd=place["work"])
    assert none.returncode == 0 and none.stdout == ""


def test_a_remote_url_with_a_token_is_never_printed(place):
    done = tool("fetch", "--remote", "http://ci:s3cr3t-TOKEN@127.0.0.1:9/x.git",
                "--db", str(place["tmp"] / "h.db"), cwd=place["work"])
    assert done.returncode == 1
    assert "s3cr3t" not in done.stderr + done.stdout
    assert "http://***@127.0.0.1:9/x.git" in done.stderr


def test_usage_errors_exit_2(place):
    assert tool("store", "--db", "x", cwd=place["work"]).returncode == 2
    assert tool("store", "--remote", "r", "--db", "x", "-m", "m", "--max-mb", "0",
                cwd=place["work"]).returncode == 2


def test_gaps_in_a_shallow_checkout_asks_for_the_whole_history(place):
    db = place["tmp"] / "h.db"
    ingest(place, db, 0)
    ingest(place, db, 4)
    shallow = place["tmp"] / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth=2", f"file://{place['work']}", str(shallow)],
                   check=True)
    done = tool("gaps", "--db", str(db), "--branch", "main", "--head", place["commits"][4],
                cwd=shallow)
    assert done.returncode == 1 and "fetch-depth: 0" in done.stderr
