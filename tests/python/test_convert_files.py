"""scripts/convert and the files it reads and writes (issue 31, items 10-12):
modes kept, every target checked before any is written, only regular files
of a bounded size read, time linear in the number of cases."""

from __future__ import annotations

import os
import pathlib
import pwd
import shutil
import stat
import subprocess
import tempfile
import time

import pytest

from pmubench import convert as conv
from pmubench.convert import files

REPO = pathlib.Path(__file__).resolve().parents[2]
CONVERT = REPO / "scripts" / "convert"
PYTHON = "/usr/bin/python3"

CASE = """\
#include <benchmark/benchmark.h>

static void BM_X(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.range(0));
}
BENCHMARK(BM_X)->Arg(8);
"""


def _run(*args, **kwargs):
    return subprocess.run([PYTHON, str(CONVERT), *map(str, args)], capture_output=True,
                          text=True, timeout=60, **kwargs)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# ------------------------------------------------------------ item 10: modes


def test_output_onto_the_source_itself_keeps_its_mode(tmp_path):
    path = tmp_path / "f.cc"
    path.write_text(CASE)
    os.chmod(path, 0o600)
    proc = _run(path, "-o", path)
    assert proc.returncode == 0, proc.stderr
    assert "PMU_BENCHMARK(BM_X)" in path.read_text()
    assert _mode(path) == 0o600


def test_output_onto_another_existing_file_keeps_that_files_mode(tmp_path):
    source, out = tmp_path / "f.cc", tmp_path / "out.cc"
    source.write_text(CASE)
    out.write_text("old")
    os.chmod(source, 0o644)
    os.chmod(out, 0o640)
    assert _run(source, "-o", out).returncode == 0
    assert "PMU_BENCHMARK(BM_X)" in out.read_text()
    assert _mode(out) == 0o640


def test_a_new_output_file_gets_the_sources_mode(tmp_path):
    source, out = tmp_path / "f.cc", tmp_path / "new.cc"
    source.write_text(CASE)
    os.chmod(source, 0o600)
    proc = _run(source, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert _mode(out) == 0o600


# ------------------------------------- item 11: every target before any write


@pytest.fixture
def shared_dirs():
    """Two directories another user (nobody) can read: `mine`, which nobody
    may write in, and `theirs`, which only root may."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run convert as another user (nobody)")
    top = tempfile.mkdtemp(prefix="pmubench-convert-")
    try:
        os.chmod(top, 0o755)
        mine, theirs = os.path.join(top, "mine"), os.path.join(top, "theirs")
        os.mkdir(mine)
        os.mkdir(theirs, 0o755)
        os.chown(mine, pwd.getpwnam("nobody").pw_uid, -1)
        yield pathlib.Path(mine), pathlib.Path(theirs)
    finally:
        shutil.rmtree(top)


def test_a_target_that_cannot_be_written_stops_convert_before_any_is_written(shared_dirs):
    mine, theirs = shared_dirs
    a, b = mine / "a.cc", theirs / "b.cc"
    for path in (a, b):
        path.write_text(CASE)
        os.chmod(path, 0o644)
    proc = _run(a, b, user="nobody", cwd="/")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert a.read_text() == CASE and b.read_text() == CASE
    assert proc.stderr.startswith(f"convert: error: {b}: cannot be written: cannot write "
                                  f"in its directory {theirs}")
    assert "nothing is written" in proc.stderr
    assert sorted(os.listdir(mine)) == ["a.cc"]


# --------------------------------------------- item 12: what convert reads


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "bench.cc"
    os.mkfifo(fifo)
    proc = _run(fifo)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"convert: error: {fifo}: not a regular file")


def test_a_link_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "bench.cc"
    link.symlink_to("/dev/zero")
    proc = _run(link)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"convert: error: {link}: not a regular file")


def test_a_source_over_the_size_limit_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "huge.cc"
    line = "// a comment line of a very large file\n"
    path.write_text(CASE + line * (files.MAX_SOURCE_BYTES // len(line) + 1))
    before = path.stat().st_mtime_ns
    proc = _run(path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"convert: error: {path}: larger than 16 MiB")
    assert path.stat().st_mtime_ns == before


def _many_cases(n: int) -> str:
    """n cases, half functions and half fixtures, as a suite file has them."""
    parts = ["#include <benchmark/benchmark.h>\n"]
    for i in range(n // 2):
        parts.append(f"static void BM_{i}(benchmark::State& state) {{\n"
                     f"  for (auto _ : state) benchmark::DoNotOptimize({i});\n}}\n"
                     f"BENCHMARK(BM_{i})->Arg({i});\n")
        parts.append(f"class F{i} : public benchmark::Fixture {{\n public:\n"
                     f"  void SetUp(const benchmark::State&) override {{}}\n}};\n"
                     f"BENCHMARK_F(F{i}, Run)(benchmark::State& st) {{\n"
                     f"  for (auto _ : st) {{}}\n}}\n")
    return "".join(parts)


def _cpu_seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        conv.convert_source(text)
        best = min(best, time.process_time() - start)
    return best


def test_convert_time_grows_linearly_with_the_cases():
    # A ratio of CPU times, not a limit: 4 times the cases takes about 4
    # times as long when linear, 16 times when quadratic (one scan of the
    # whole file per case). scripts/dev/convert_cost.py prints the figures.
    small, large = _many_cases(300), _many_cases(1200)
    assert len(conv.convert_source(large).changes) > 3000
    ratio = _cpu_seconds(large) / _cpu_seconds(small)
    assert ratio < 8, f"4x the cases took {ratio:.1f}x the CPU time"
