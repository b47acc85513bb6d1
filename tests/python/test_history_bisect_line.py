"""history.py detect prints the scripts/bisect.sh command for a step whose
measured commit before it is not its parent (nightly runs skip commits),
and none for a step between adjacent commits: the commits are those of a
git repository made here, which detect runs in."""

from __future__ import annotations

import subprocess

from pmubench.history import ingest, store, synthetic
from test_history_sqlite import DAY, T0, history


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                           "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def _commits(repo, n):
    repo.mkdir()
    _git(repo, "init", "-q")
    shas = []
    for i in range(n):
        (repo / "f").write_text(f"{i}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"commit {i}")
        shas.append(_git(repo, "rev-parse", "HEAD"))
    return shas


def _ingest(tmp_path, db, shas, measured, step_at):
    """Runs at the commits `measured` (indexes into shas); the count of
    BM_A/16 steps from 1000 to 1001 at commit `step_at`."""
    engine = store.open_store(db, create=True)
    for i in measured:
        values = {"BM_A/16": {"callgrind/instructions/": [1000.0 + (i >= step_at)] * 3}}
        path = synthetic.write(str(tmp_path / f"run{i}.json"),
                               synthetic.run(T0 + i * DAY, values))
        prepared = ingest.prepare(path)
        assert ingest.write(engine, prepared, shas[i], "main", prepared.time, None)
    engine.dispose()


def test_a_step_over_skipped_commits_prints_its_bisect_command(tmp_path):
    shas = _commits(tmp_path / "repo", 8)
    db = str(tmp_path / "h.db")
    _ingest(tmp_path, db, shas, [0, 1, 2, 6, 7], step_at=5)  # 3, 4, 5 not run
    done = history("detect", "--db", db, cwd=tmp_path / "repo", separate=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and lines[1].startswith(shas[6][:12]), done.stdout
    assert lines[2] == (f"  4 commits since {shas[2][:12]}, find which: scripts/bisect.sh "
                        f"--good {shas[2]} --bad {shas[6]} --benchmark '^BM_A/16$' "
                        f"--metric callgrind/instructions/")


def test_a_step_between_adjacent_commits_prints_none(tmp_path):
    shas = _commits(tmp_path / "repo", 6)
    db = str(tmp_path / "h.db")
    _ingest(tmp_path, db, shas, range(6), step_at=4)
    done = history("detect", "--db", db, cwd=tmp_path / "repo", separate=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith(shas[4][:12]), done.stdout
    assert "bisect.sh" not in done.stdout
