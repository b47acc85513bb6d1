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
import shutil
import subprocess

import pytest

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
    assert "BM_Tiny instructions +10.00%" in proc.stdout
    report = json.loads((out / "compare.json").read_text())
    (row,) = [r for r in report["rows"] if r["metric"] == "instructions"]
    # Two rounds of 3 repetitions per side, merged: 6 vs 6, enough for the test.
    assert row["verdict"] == "regression" and row["mode"] == "u-test"
    assert row["baseline"]["n"] == row["contender"]["n"] == 6
    assert (out / "compare.md").read_text().startswith("### pmubench comparison: :x:")
    for side in ("base", "head"):
        assert (out / f"{side}.json").exists()
    assert sorted(p.name for p in out.iterdir()) == [
        "base-cmake.log", "base-run.log", "base.json", "compare.json", "compare.md",
        "head-cmake.log", "head-run.log", "head.json"]
    # Worktrees are removed afterwards; the checkout itself is untouched.
    assert not (out / "worktrees").exists()
    listed = subprocess.run(["git", "-C", str(repo), "worktree", "list"],
                            capture_output=True, text=True).stdout
    assert len(listed.splitlines()) == 1
