"""End-to-end test of scripts/ci_compare.sh on a throwaway git repository.

The repository holds a tiny CMake project with the same target and binary
path as the suite (target benches_all -> build/benches/all): one Google
Benchmark case whose "instructions" counter is a constant in the source.
The second commit raises it by 10%, so the recipe must build both
revisions in worktrees, run them in alternating rounds, merge the rounds,
and exit 1 with the reports written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import FAKE_BENCH

_CMAKE = """\
cmake_minimum_required(VERSION 3.18)
project(tiny LANGUAGES CXX)
find_package(benchmark REQUIRED)
add_executable(benches_all benches/tiny.cc)
set_target_properties(benches_all PROPERTIES OUTPUT_NAME all
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/benches)
target_link_libraries(benches_all benchmark::benchmark_main)
"""

_BENCH = """\
#include <benchmark/benchmark.h>
static void BM_Tiny(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
  state.counters["instructions"] = benchmark::Counter(
      %d.0 * state.iterations(), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Tiny);
"""


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True,
                   capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("git") is None,
                    reason="needs cmake and git")
def test_ci_recipe_builds_both_revisions_and_fails_on_the_regression(tmp_path, repo_root):
    repo = tmp_path / "repo"
    (repo / "benches").mkdir(parents=True)
    (repo / "CMakeLists.txt").write_text(_CMAKE)
    (repo / "benches" / "tiny.cc").write_text(_BENCH % 1000)
    # The recipe runs compare.py from its own checkout: copy it in.
    shutil.copytree(repo_root / "scripts", repo / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    (repo / "benches" / "tiny.cc").write_text(_BENCH % 1100)
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "slower")

    out = tmp_path / "out"
    proc = subprocess.run(
        ["bash", str(repo / "scripts" / "ci_compare.sh"), "--base", "HEAD~1",
         "--reps", "3", "--rounds", "2", "--min-time", "0.001", "--jobs", "2", "--out", str(out)],
        cwd=repo, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"BM_Tiny instructions [0-9,.]+ -> [0-9,.]+ \(\+[0-9,.]+, \+10\.00%\)",
                     proc.stdout), proc.stdout
    report = json.loads((out / "compare.json").read_text())
    (row,) = [r for r in report["rows"] if r["metric"] == "instructions"]
    # Two rounds of 3 repetitions per side, merged: 6 vs 6, enough for the test.
    assert row["verdict"] == "regression" and row["mode"] == "u-test"
    assert row["baseline"]["n"] == row["contender"]["n"] == 6
    assert (out / "compare.md").read_text().startswith("### pmubench comparison: :x:")
    for side in ("base", "head"):
        assert (out / f"{side}.json").exists()
    assert sorted(p.name for p in out.iterdir()) == [
        "base-build.log", "base-run.log", "base.json", "compare-full.md", "compare.json",
        "compare.md", "head-build.log", "head-run.log", "head.json"]
    # Worktrees are removed afterwards; the checkout itself is untouched.
    assert not (out / "worktrees").exists()
    listed = subprocess.run(["git", "-C", str(repo), "worktree", "list"],
                            capture_output=True, text=True).stdout
    assert len(listed.splitlines()) == 1


# A "benchmark binary" of any project: a script that writes Google Benchmark
_FAKE_BENCH = FAKE_BENCH


def _fake_project(tmp_path, repo_root, counts):
    """A git repository with one commit per entry of counts."""
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "bench.py").write_text(_FAKE_BENCH)
    _git(repo, "init", "-q")
    for i, count in enumerate(counts):
        (repo / "count.txt").write_text(f"{count}\n")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit",
             "--allow-empty", "-qm", f"commit {i}")
    return repo


def _recipe(repo_root, repo, *args):
    return subprocess.run(
        ["bash", str(repo_root / "scripts" / "ci_compare.sh"), *args],
        cwd=repo, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_any_project_with_its_own_build_and_run_commands(tmp_path, repo_root):
    repo = _fake_project(tmp_path, repo_root, [1000, 1100])
    out = tmp_path / "out"
    proc = _recipe(repo_root, repo, "--base", "HEAD~1", "--reps", "3",
                   "--build-cmd", "test -f bench.py",
                   "--run-cmd", "/usr/bin/python3 bench.py", "--out", str(out))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BM_Fake instructions 1,000 -> 1,100 (+100, +10.00%)" in proc.stdout
    assert "1 benchmark(s) regressed" in proc.stdout
    report = json.loads((out / "compare.json").read_text())
    assert report["regressed_benchmarks"] == ["BM_Fake"]
    # The checkout is untouched: nothing untracked appeared in it.
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"],
                            capture_output=True, text=True, check=True)
    assert status.stdout == ""


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_failing_build_command_is_a_step_failure_naming_its_log(tmp_path, repo_root):
    repo = _fake_project(tmp_path, repo_root, [1000, 1100])
    proc = _recipe(repo_root, repo, "--base", "HEAD~1", "--build-cmd", "false",
                   "--run-cmd", "true", "--out", str(tmp_path / "out"))
    assert proc.returncode == 3
    assert "--build-cmd failed for base" in proc.stderr
    assert "base-build.log" in proc.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_same_commit_on_both_sides_is_refused_unless_asked_for(tmp_path, repo_root):
    repo = _fake_project(tmp_path, repo_root, [1000])
    run = ["--build-cmd", "true", "--run-cmd", "/usr/bin/python3 bench.py",
           "--reps", "3", "--out", str(tmp_path / "out")]
    proc = _recipe(repo_root, repo, "--base", "HEAD", *run)
    assert proc.returncode == 2
    assert "are the same commit" in proc.stderr
    assert "--allow-same-commit" in proc.stderr
    assert not (tmp_path / "out").exists()
    # An A/A run on purpose: the same numbers on both sides pass.
    proc = _recipe(repo_root, repo, "--base", "HEAD", "--allow-same-commit", *run)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Result: PASS: 0 benchmark(s) regressed" in proc.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_reports_go_outside_the_work_tree_or_where_git_ignores_them(tmp_path, repo_root):
    repo = _fake_project(tmp_path, repo_root, [1000, 1000])
    run = ["--base", "HEAD~1", "--build-cmd", "true",
           "--run-cmd", "/usr/bin/python3 bench.py", "--reps", "3"]
    proc = _recipe(repo_root, repo, *run, "--out", "cmp")
    assert proc.returncode == 2
    assert "inside the work tree and git does not ignore it" in proc.stderr
    assert not (repo / "cmp").exists()  # refused before it was made
    (repo / ".gitignore").write_text("cmp/\n")
    proc = _recipe(repo_root, repo, *run, "--out", "cmp")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "cmp" / "compare.json").exists()
    # Without --out: a new private directory under $TMPDIR named after the
    # checkout (tests/python/test_ci_compare_safety.py has more).
    env_tmp = tmp_path / "tmpdir"
    env_tmp.mkdir()
    proc = subprocess.run(
        ["bash", str(repo_root / "scripts" / "ci_compare.sh"), *run],
        cwd=repo, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TMPDIR": str(env_tmp)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (out,) = env_tmp.iterdir()
    assert out.name.startswith("pmubench-compare-project.")
    assert (out / "compare.json").exists()


@pytest.mark.parametrize("args, message", [
    (["--bazel-target", "benches:all"], "//package:target"),
    (["--build-cmd", "true"], "--build-cmd and --run-cmd go together"),
    (["--cmake-target", "x", "--run-cmd", "y"], "give one of"),
    # Flags that disagree: the last would win silently.
    (["--simulate", "--no-simulate"], "--simulate and --no-simulate disagree"),
    (["--no-simulate", "--simulate=cache"], "disagree"),
    (["--simulate", "--simulate=cache"], "disagree"),
])
def test_bad_build_options_are_usage_errors(tmp_path, repo_root, args, message):
    repo = _fake_project(tmp_path, repo_root, [1000, 1100])
    proc = _recipe(repo_root, repo, "--base", "HEAD~1", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
