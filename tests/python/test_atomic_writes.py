"""Files are written whole or not at all, also when the disk fills up.

A real short write, without mounting anything: the tool runs with
RLIMIT_FSIZE lowered (setrlimit(2): a write past the limit fails with EFBIG
once SIGXFSZ is ignored), as a full disk fails it with ENOSPC.

And whole files for others to read: a report's mode follows the umask
(0666 & ~umask), as a file made by open(2) would be."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess

import pytest

from conftest import PYTHON, REPO_ROOT

LIMIT = 4096  # bytes: smaller than every output below


def _limited():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


@pytest.fixture(scope="module")
def mpl_config(tmp_path_factory):
    """A matplotlib config directory whose font cache is already built: under
    the lowered RLIMIT_FSIZE matplotlib could not write it (it writes it in
    place, so a limited first run cut ~/.cache/matplotlib's to 4096 bytes and
    failed with a traceback before plot.py ran at all)."""
    path = tmp_path_factory.mktemp("mplconfig")
    subprocess.run([PYTHON, "-c", "import matplotlib.font_manager"], check=True,
                   capture_output=True, timeout=300,
                   env={**os.environ, "MPLCONFIGDIR": str(path)})
    return str(path)


def _run(*args, cwd, mpl_config=None):
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    if mpl_config:
        env["MPLCONFIGDIR"] = mpl_config
    return subprocess.run([PYTHON, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300, preexec_fn=_limited, env=env)


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


def test_plot_leaves_no_half_report(tmp_path, fixture_path, mpl_config):
    proc = _run(REPO_ROOT / "reports/plot.py",
                fixture_path("plot", "run_aggregates_only.json"), "-o", tmp_path / "report",
                cwd=tmp_path, mpl_config=mpl_config)
    assert proc.returncode == 2, proc.stderr
    assert "cannot write the report" in proc.stderr and "Traceback" not in proc.stderr
    assert os.listdir(tmp_path) == []


def _with_umask(mask):
    return lambda: os.umask(mask)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o027], ids=["022", "077", "027"])
def test_reports_are_as_readable_as_the_umask_says(tmp_path, fx, mask):
    """compare.py -o and merge.py (and so ci_compare.sh) give their files
    0666 & ~umask, not mkstemp's 0600, so a CI's other users can read them."""
    want = 0o666 & ~mask
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    runs = {
        "compare.json": [REPO_ROOT / "scripts/compare.py", fx("base.json"), fx("rerun.json"),
                         "--format", "json", "--output", tmp_path / "compare.json"],
        "merged.json": [REPO_ROOT / "scripts/merge.py", tmp_path / "merged.json",
                        fx("base.json"), fx("rerun.json")],
    }
    for name, args in runs.items():
        proc = subprocess.run([PYTHON, *map(str, args)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=300, preexec_fn=_with_umask(mask),
                              env=env)
        assert proc.returncode in (0, 1), proc.stderr
        mode = stat.S_IMODE(os.stat(tmp_path / name).st_mode)
        assert mode == want, f"{name}: {mode:o}, want {want:o} under umask {mask:03o}"


def test_replacing_a_file_gives_it_the_umask_mode_too(tmp_path):
    """Over an existing file of another mode, the new file has the umask's mode
    (it is a new file, renamed over the old one), and nothing else is left."""
    from pmubench.base import atomic
    path = tmp_path / "report.md"
    path.write_text("old")
    os.chmod(path, 0o600)
    old = os.umask(0o022)
    try:
        atomic.write_atomically(str(path), "new")
    finally:
        os.umask(old)
    assert path.read_text() == "new"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert os.listdir(tmp_path) == ["report.md"]


def test_a_stop_at_any_step_of_a_write_leaves_no_temp_file(tmp_path):
    """SIGTERM raised at each Python step of write_atomically in turn (the
    stdlib's mkstemp included, which runs Python code after making the
    file): out.json stays old or becomes new, and no temp file is left."""
    proc = subprocess.run(
        [PYTHON, str(REPO_ROOT / "tests/python/stop_at_every_step.py"), str(tmp_path)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "scripts")})
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["steps"] > 20, seen  # the hook saw the write's steps
    assert seen["stopped"] == seen["steps"], seen  # every stop was delivered
    assert seen["broken"] == [], seen
