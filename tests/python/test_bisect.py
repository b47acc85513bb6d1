"""scripts/bisect.sh on a generated repository of 32 commits whose "build"
is a shell test and whose "benchmark" is a Python script writing Google
Benchmark JSON from the commit's counts.txt (no C++ build per commit):
commit 21 adds one instruction per iteration to BM_B. The bisection names
commit 21 by its full SHA in at most 5 builds between the ends, with the
change's attribution (its exact profiles: work_BM_B, line 7, +1), skips
commits that do not build, and refuses a range with no change."""

from __future__ import annotations

import subprocess

import pytest

BENCH = """\
import json, re, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
pattern = re.compile(args["benchmark_filter"])
runs = []
for line in open("counts.txt"):
    name, value = line.split()
    if pattern.search(name):
        runs.append({"name": name, "run_name": name, "run_type": "iteration",
                     "repetitions": 1, "repetition_index": 0, "threads": 1,
                     "iterations": 10, "real_time": 1.0, "cpu_time": 1.0,
                     "time_unit": "ns", "callgrind/instructions/": float(value)})
        if "pmubench_profile" in args:  # exact, as under --pmubench_simulate
            runs[-1].update({
                "pmubench_profile_event": "callgrind/instructions/",
                "pmubench_profile_per_iteration": [
                    {"symbol": "work_" + name, "count": float(value) - 50},
                    {"symbol": "loop", "count": 50.0}],
                "pmubench_profile_lines_per_iteration": [
                    {"symbol": "work_" + name, "file": "src/work.cc", "line": 7,
                     "count": float(value) - 50}]})
json.dump({"context": {}, "benchmarks": runs}, open(args["benchmark_out"], "w"))
"""


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                           "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def _repo(path, broken=()):
    """32 commits; [sha of commit 1, ..., sha of commit 32]. Commits in
    `broken` hold a file named broken, which fails the build."""
    path.mkdir()
    _git(path, "init", "-q")
    (path / "bench.py").write_text(BENCH)
    shas = []
    for i in range(1, 33):
        (path / "counts.txt").write_text(f"BM_A 100\nBM_B {201 if i >= 21 else 200}\n")
        (path / "history.txt").write_text(f"commit {i}\n")
        if i in broken:
            (path / "broken").write_text("")
        elif (path / "broken").exists():
            (path / "broken").unlink()
        _git(path, "add", "-A")
        _git(path, "commit", "-qm", f"commit {i}")
        shas.append(_git(path, "rev-parse", "HEAD"))
    return shas


def _bisect(repo_root, repo, tmp_path, good, bad, *extra):
    return subprocess.run(
        [str(repo_root / "scripts" / "bisect.sh"), "--good", good, "--bad", bad,
         "--benchmark", "BM_", "--build-cmd", "test ! -e broken",
         "--run-cmd", "/usr/bin/python3 bench.py", "--out", str(tmp_path / "out"),
         *extra], cwd=repo, capture_output=True, text=True, timeout=300)


def _between(stderr):
    """The builds between --good and --bad that a bisection reports."""
    return int(stderr.split(" builds (")[1].split(" between")[0])


def test_names_commit_21_with_its_full_sha_in_at_most_5_midpoint_builds(
        repo_root, tmp_path):
    shas = _repo(tmp_path / "repo")
    r = _bisect(repo_root, tmp_path / "repo", tmp_path, shas[0], shas[-1])
    assert r.returncode == 0, r.stderr
    assert f"changed: {shas[20]} commit 21" in r.stdout
    assert "BM_B: 200.0 -> 201.0" in r.stdout
    assert "BM_A" not in r.stdout
    why = r.stdout.split("Why it changed", 1)[1]
    moved = [line.split() for line in why.splitlines() if "work_BM_B" in line]
    assert moved and all("+1" in words for words in moved), why
    assert any("work.cc:7" in line for line in why.splitlines()), why
    assert "loop" not in why.split("work_BM_B", 1)[1].split("\n", 1)[0]
    assert _between(r.stderr) <= 5  # log2 of the 31 commits after --good
    assert _git(tmp_path / "repo", "worktree", "list").count("\n") == 0


def test_commits_that_do_not_build_are_skipped(repo_root, tmp_path):
    shas = _repo(tmp_path / "repo", broken=range(12, 20))
    r = _bisect(repo_root, tmp_path / "repo", tmp_path, shas[0], shas[-1])
    assert r.returncode == 0, r.stderr
    assert "skipping this commit" in r.stderr
    assert f"changed: {shas[20]} commit 21" in r.stdout


def test_a_range_with_no_change_is_refused(repo_root, tmp_path):
    shas = _repo(tmp_path / "repo")
    r = _bisect(repo_root, tmp_path / "repo", tmp_path, shas[0], shas[19])
    assert r.returncode == 2
    assert "count the same callgrind/instructions/" in r.stderr
    assert "first commit" not in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--good", "HEAD~1"], "give --good REV, --bad REV and --benchmark REGEX"),
    (["--good", "HEAD", "--bad", "HEAD~1", "--benchmark", "x"], "is not an ancestor"),
    (["--good", "nope", "--bad", "HEAD", "--benchmark", "x"], "--good 'nope' is not a commit"),
    (["--good", "HEAD~1", "--bad", "HEAD", "--benchmark", "x", "--build-cmd", "true"],
     "--build-cmd and --run-cmd go together"),
])
def test_bad_usage_exits_2_before_any_build(repo_root, tmp_path, args, message):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for i in (1, 2):
        (repo / "f").write_text(str(i))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", str(i))
    r = subprocess.run([str(repo_root / "scripts" / "bisect.sh"), *args], cwd=repo,
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert message in r.stderr
