"""A pull request's head run made by ci_compare.sh --simulate is judged
against a history ingested by docs/history.md's main workflow (issue 44,
item 3): both record the runner's kernel and guest_cpu, so judge finds
main's machine (exit 0 or 1, never 4); a head whose facts differ gets
exit 4 with each differing fact named.

The benchmark binary is a stand-in (a Python script in a git repository,
as tests/python/test_compare_ci_script.py uses): it writes a simulated
run, and records every --benchmark_context=KEY=VALUE in its context as
Google Benchmark does, so what ci_compare.sh passes is what is tested."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import PYTHON, REPO_ROOT

SIMULATED_BENCH = """\
import json, sys
if "--help" in sys.argv:
    print("--pmubench_simulate[=instructions|cache]"); sys.exit(0)
args = [a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a]
flags = dict(args)
context = {"date": "2026-11-01T00:00:00+00:00", "num_cpus": 2, "library_build_type": "debug",
           "pmubench_backend": "callgrind", "pmubench_valgrind": "valgrind-3.19.0",
           "pmubench_cache_geometry": "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"}
for key, value in args:
    if key == "benchmark_context":
        k, v = value.split("=", 1); context[k] = v
count = float(open("count.txt").read().split()[0])
runs = [{"name": "BM_Fake", "run_name": "BM_Fake", "run_type": "iteration", "repetitions": 1,
         "repetition_index": 0, "threads": 1, "iterations": 1000, "real_time": 10.0,
         "cpu_time": 10.0, "time_unit": "ns", "callgrind/instructions/": count}]
with open(flags["benchmark_out"], "w") as f:
    json.dump({"context": context, "benchmarks": runs}, f)
"""
# The main workflow's run step (docs/history.md, "Keep main's runs").
MAIN_RUN = ('/usr/bin/python3 bench.py --pmubench_simulate --benchmark_repetitions=3 '
            '--benchmark_out=run.json --benchmark_out_format=json '
            '--benchmark_context=kernel="$(uname -r)" '
            '--benchmark_context=guest_cpu="$(ld.so --help | grep -m1 \'supported, searched\' '
            '| awk \'{print $1}\')"')


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo,
                   check=True, capture_output=True)


def _project(tmp_path: Path, counts: list[int]) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "bench.py").write_text(SIMULATED_BENCH)
    _git(repo, "init", "-q")
    for i, count in enumerate(counts):
        (repo / "count.txt").write_text(f"{count}\n")
        _git(repo, "add", ".")
        _git(repo, "commit", "--allow-empty", "-qm", f"commit {i}")
    return repo


def _main_history(repo: Path, db: Path) -> None:
    """The main workflow's run and ingest, on the base commit."""
    subprocess.run(["git", "checkout", "-q", "HEAD~1"], cwd=repo, check=True)
    subprocess.run(["bash", "-c", MAIN_RUN], cwd=repo, check=True)
    done = subprocess.run([PYTHON, str(REPO_ROOT / "scripts/history.py"), "ingest", "--db",
                           str(db), "--branch", "main", "run.json"], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (repo / "run.json").unlink()
    subprocess.run(["git", "checkout", "-q", "-"], cwd=repo, check=True)


def _pr_head(repo: Path, out: Path, *extra: str) -> Path:
    done = subprocess.run(["bash", str(REPO_ROOT / "scripts/ci_compare.sh"), "--base", "HEAD~1",
                           "--simulate", "--build-cmd", "true",
                           "--run-cmd", "/usr/bin/python3 bench.py", "--out", str(out), *extra],
                          cwd=repo, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return out / "head.json"


def _judge(db: Path, head: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, str(REPO_ROOT / "scripts/history.py"), "judge", "--db",
                           str(db), "--branch", "main", str(head), *extra],
                          capture_output=True, text=True)


def test_a_pr_head_from_ci_compare_is_judged_against_mains_history(tmp_path):
    repo = _project(tmp_path, [150, 151])
    db = tmp_path / "history.db"
    _main_history(repo, db)
    head = _pr_head(repo, tmp_path / "out")
    done = _judge(db, head)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "BM_Fake callgrind/instructions/: 150 -> 151 (+1, +0.67%)" in done.stdout


def test_a_head_with_other_facts_names_each_one_that_differs(tmp_path):
    repo = _project(tmp_path, [1000, 1000])
    db = tmp_path / "history.db"
    _main_history(repo, db)
    head = _pr_head(repo, tmp_path / "out", "--context", "project_build=Release")
    done = _judge(db, head)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "differs in 1 fact(s): project_build: this run Release, the history absent" \
        in done.stdout
    as_json = json.loads(_judge(db, head, "--format", "json").stdout)
    assert as_json["nearest_machine"]["differences"] == [
        {"fact": "project_build", "run": "Release", "history": None}]


def test_a_bad_context_is_a_usage_error(tmp_path):
    repo = _project(tmp_path, [1000, 1000])
    done = subprocess.run(["bash", str(REPO_ROOT / "scripts/ci_compare.sh"), "--context",
                           "kernel", "--build-cmd", "true", "--run-cmd", "true"],
                          cwd=repo, capture_output=True, text=True)
    assert done.returncode == 2 and "--context 'kernel': give KEY=VALUE" in done.stderr
