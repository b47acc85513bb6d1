"""reports/plot.py leaves no staging directory behind when it is stopped.

plot.py renders a report into a staging directory beside OUTDIR
(.NAME.tmp-PID-XXXXXX) and swaps it in at the end. SIGTERM (a CI timeout)
or SIGINT removes it and exits 128+signum; after a SIGKILL, which nothing
can catch, the next run removes the directories that are provably a dead
plot.py's: the prefix of that OUTDIR, owned by this user, of a PID that is
no longer alive.
"""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
import time

import pytest

from conftest import PYTHON, REPO_ROOT
from pmubench.report import outdir as outdir_mod

PLOT = REPO_ROOT / "reports" / "plot.py"
FIXTURES = REPO_ROOT / "tests" / "python" / "fixtures" / "plot"
# 2 files of 14 benchmarks: about 15 s of plotting on the 2-core machine,
# time enough to stop it in the middle.
SLOW = [FIXTURES / "run_base.json", FIXTURES / "run_contender.json"]
QUICK = [FIXTURES / "run_aggregates_only.json"]


def _staging_dirs(parent):
    return sorted(n for n in os.listdir(parent) if n.startswith(".rep.tmp-"))


def _start_and_wait_for_staging(tmp_path):
    proc = subprocess.Popen([PYTHON, str(PLOT), *map(str, SLOW), "-o", str(tmp_path / "rep")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not _staging_dirs(tmp_path):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "plot.py made no staging directory in 120 s"
        time.sleep(0.05)
    time.sleep(0.5)  # well inside the plotting now
    assert proc.poll() is None, "plot.py finished before it could be stopped"
    return proc


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_stopped_run_removes_its_staging_and_keeps_the_earlier_report(tmp_path, sig):
    earlier = tmp_path / "rep"
    earlier.mkdir()
    (earlier / outdir_mod.MARKER).write_text("an earlier report\n")
    (earlier / "index.html").write_text("earlier")
    proc = _start_and_wait_for_staging(tmp_path)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert f"stopped by {sig.name}" in err and "Traceback" not in err
    assert os.listdir(tmp_path) == ["rep"]
    assert sorted(os.listdir(earlier)) == sorted([outdir_mod.MARKER, "index.html"])
    assert (earlier / "index.html").read_text() == "earlier"


def test_after_a_sigkill_the_next_run_removes_the_dead_runs_staging(tmp_path):
    proc = _start_and_wait_for_staging(tmp_path)
    proc.kill()
    proc.communicate(timeout=60)
    (left,) = _staging_dirs(tmp_path)  # nothing can catch SIGKILL
    assert left.startswith(f".rep.tmp-{proc.pid}-")
    done = subprocess.run([PYTHON, str(PLOT), *map(str, QUICK), "-o", str(tmp_path / "rep")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert os.listdir(tmp_path) == ["rep"]


def _dead_pid():
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_only_provably_stale_staging_directories_are_removed(tmp_path):
    dead = _dead_pid()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        names = {
            f".rep.tmp-{dead}-abc123": False,          # ours, its plot.py is gone: removed
            f".rep.tmp-{dead}-abc123.old": False,      # an earlier report being swapped out
            f".rep.tmp-{sleeper.pid}-def456": True,    # its process still runs: kept
            f".rep.tmp-{os.getpid()}-ghi789": True,    # this very process: kept
            ".rep.tmp-jkl012": True,                   # no PID in its name: not provably ours
            f".other.tmp-{dead}-mno345": True,         # another OUTDIR's
        }
        for name in names:
            (tmp_path / name).mkdir()
            (tmp_path / name / "a.png").write_text("x")
        if os.geteuid() == 0:  # root can make a directory of another user
            foreign = f".rep.tmp-{dead}-pqr678"       # another user's: kept
            (tmp_path / foreign).mkdir()
            os.chown(tmp_path / foreign, pwd.getpwnam("nobody").pw_uid, -1)
            names[foreign] = True
        planted = f".rep.tmp-{dead}-stu901"          # a symbolic link is never followed
        target = tmp_path / "target"
        target.mkdir()
        (target / "keep.txt").write_text("keep")
        os.symlink(target, tmp_path / planted)
        names[planted] = True

        staging = outdir_mod.stage(str(tmp_path / "rep"))
        assert os.path.basename(staging).startswith(f".rep.tmp-{os.getpid()}-")
        outdir_mod.discard(staging)
        left = {n for n in os.listdir(tmp_path) if n.startswith(".")}
        assert left == {n for n, kept in names.items() if kept}
        assert (target / "keep.txt").read_text() == "keep"
    finally:
        sleeper.kill()
        sleeper.wait()
