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
