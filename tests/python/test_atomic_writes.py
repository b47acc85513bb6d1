"""Files are written whole or not at all, also when the disk fills up.

A real short write, without mounting anything: the tool runs with
RLIMIT_FSIZE lowered (setrlimit(2): a write past the limit fails with EFBIG
once SIGXFSZ is ignored), as a full disk fails it with ENOSPC."""

from __future__ import annotations

import os
import resource
import signal
import subprocess

import pytest

from conftest import PYTHON, REPO_ROOT

LIMIT = 4096  # bytes: smaller than every output below


def _limited():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _run(*args, cwd):
    return subprocess.run([PYTHON, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300, preexec_fn=_limited,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


@pytest.fixture
def fx(fixture_path):
    return lambda name: str(fixture_path("compare", name))


def test_compare_output_is_old_or_new_never_cut(tmp_path, fx):
    out = tmp_path / "compare.json"
    out.write_text("old report")
    proc = _run(REPO_ROOT / "scripts/compare.py", fx("base.json"), fx("rerun.json"),
                "--format", "json", "--output", out, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot write {out}" in proc.stderr
    assert out.read_text() == "old report"
    assert os.listdir(tmp_path) == ["compare.json"]


def test_merge_leaves_nothing_on_a_short_write(tmp_path, fx):
    out = tmp_path / "merged.json"
    proc = _run(REPO_ROOT / "scripts/merge.py", out, fx("base.json"), fx("rerun.json"),
                cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot write {out}" in proc.stderr and "Traceback" not in proc.stderr
    assert os.listdir(tmp_path) == []


def test_plot_leaves_no_half_report(tmp_path, fixture_path):
    proc = _run(REPO_ROOT / "reports/plot.py",
                fixture_path("plot", "run_aggregates_only.json"), "-o", tmp_path / "report",
                cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "cannot write the report" in proc.stderr and "Traceback" not in proc.stderr
    assert os.listdir(tmp_path) == []
