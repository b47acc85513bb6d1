"""pmubench.base.front, the one wrapper of compare.py, history.py and
merge.py: a stop signal (SIGINT too) exits 128 + N through the clean-up in
progress, a crash exits 2 saying it is a bug, and every entry point runs
through it."""

from __future__ import annotations

import ast
import signal
import subprocess

import pytest

from conftest import PYTHON, REPO_ROOT

SCRIPTS = REPO_ROOT / "scripts"
ENTRY_POINTS = ("compare.py", "history.py", "history_branch.py", "merge.py")

PROGRAM = """
import os, signal, sys
from pmubench.base import atomic, front

def main():
    if sys.argv[1] == "crash":
        raise ValueError("boom")
    # the signal arrives mid-write, between the data and its rename
    os.fsync = lambda fd: os.kill(os.getpid(), int(sys.argv[2]))
    atomic.write_atomically(sys.argv[3], "data")
    return 0

sys.exit(front.run("tool.py", main, "the inputs"))
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["TERM", "INT", "HUP"])
def test_a_stop_signal_exits_128_plus_n_and_leaves_nothing(tmp_path, sig):
    out = tmp_path / "out.txt"
    done = subprocess.run([PYTHON, "-c", PROGRAM, "signal", str(int(sig)), str(out)],
                          cwd=SCRIPTS, capture_output=True, text=True, timeout=60)
    assert done.returncode == 128 + sig, done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []   # neither the file nor its temp file


def test_a_crash_exits_2_and_says_it_is_a_bug(tmp_path):
    done = subprocess.run([PYTHON, "-c", PROGRAM, "crash"], cwd=SCRIPTS,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "ValueError: boom" in done.stderr
    assert ("tool.py: internal error (a bug in tool.py, not a regression); please "
            "report it with the inputs") in done.stderr


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_runs_through_front(name):
    tree = ast.parse((SCRIPTS / name).read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr == "run"
             and getattr(n.func.value, "id", "") == "front"]
    assert len(calls) == 1
    handlers = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and n.attr == "signal" and getattr(n.value, "id", "") == "signal"]
    assert handlers == [], f"{name} sets signal handlers of its own"
