"""Shared pytest setup for the Python tools (scripts/compare.py, reports/).

Tests import the pmubench package (scripts/pmubench) through
`pythonpath = scripts` in pytest.ini. This file offers fixtures to find
fixture files and to run a tool the way a user does: a subprocess of
Debian's /usr/bin/python3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# A Google Benchmark "binary" for ci_compare.sh tests (run as
# `python3 bench.py FLAGS` in a test repository): writes to --benchmark_out
# --benchmark_repetitions runs of one case whose instructions counter is the
# number in the first line of count.txt.
FAKE_BENCH = """\
import json, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
per_iteration = float(open("count.txt").read().split()[0])
runs = [{"name": "BM_Fake", "run_name": "BM_Fake", "run_type": "iteration",
         "repetitions": int(args["benchmark_repetitions"]),
         "repetition_index": i, "threads": 1, "iterations": 1000,
         "real_time": 10.0 + i * 0.01, "cpu_time": 10.0 + i * 0.01,
         "time_unit": "ns", "instructions": per_iteration}
        for i in range(int(args["benchmark_repetitions"]))]
with open(args["benchmark_out"], "w") as f:
    json.dump({"context": {"library_build_type": "release"},
               "benchmarks": runs}, f)
"""
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
# The tools are documented to run under Debian's python3, which has scipy
# and matplotlib; the python3 on PATH may be a shim without them.
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def fixture_path():
    """fixture_path("compare", "base.json") -> absolute Path (must exist)."""
    def find(*parts: str) -> Path:
        path = FIXTURES_DIR.joinpath(*parts)
        assert path.exists(), f"missing test fixture {path}"
        return path
    return find


@pytest.fixture
def run_tool():
    """run_tool("scripts/compare.py", arg, ...) -> CompletedProcess with
    text stdout/stderr, run from the repository root."""
    def run(script: str, *args, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [PYTHON, str(REPO_ROOT / script), *map(str, args)],
            capture_output=True, text=True, cwd=REPO_ROOT, timeout=300,
            env={**os.environ, **(env or {})})
    return run


def binary_commits(repo: Path, base: str, head: str, message: str) -> Path:
    """A new git repository at `repo` of two commits whose binary.txt names
    a benchmark binary (base, then head), so ci_compare.sh's --build-cmd
    true --run-cmd 'exec "$(cat binary.txt)"' runs a prebuilt binary per
    commit instead of building one."""
    def git(*args):
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                        "user.email=t@t", *args], check=True, capture_output=True)
    repo.mkdir()
    (repo / "binary.txt").write_text(base + "\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "base")
    (repo / "binary.txt").write_text(head + "\n")
    git("commit", "-qam", message)
    return repo
