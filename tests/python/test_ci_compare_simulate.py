"""ci_compare.sh --simulate end to end, under real valgrind.

A throwaway git repository holds two commits whose "build" picks one of two
pmubench binaries the C++ build made from tests/runner/simulate_kernel.cc:
the base, and a commit that adds one instruction per iteration to a case of
102 instructions (+0.98%). CTest runs this file with their paths in
PMUBENCH_KERNEL_BASE and PMUBENCH_KERNEL_SLOWER; without them (a Python-only
run) it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import binary_commits

_BASE = os.environ.get("PMUBENCH_KERNEL_BASE", "")
_SLOWER = os.environ.get("PMUBENCH_KERNEL_SLOWER", "")

pytestmark = [
    pytest.mark.skipif(not (_BASE and _SLOWER),
                       reason="needs the C++ build's simulate kernels "
                              "(CTest's ci_compare_simulate sets their paths)"),
    pytest.mark.skipif(shutil.which("valgrind") is None,
                       reason="needs valgrind (apt-get install valgrind)"),
]


@pytest.fixture
def repo(tmp_path):
    """base -> slower: each commit names the binary its build gives."""
    return binary_commits(tmp_path / "repo", _BASE, _SLOWER,
                          "one more instruction per iteration")


def _ci_compare(repo_root, repo, out, *args, env=None):
    cmd = [str(repo_root / "scripts" / "ci_compare.sh"),
           "--build-cmd", "true", "--run-cmd", 'exec "$(cat binary.txt)"',
           "--out", str(out), *args]
    return subprocess.run(cmd, cwd=repo, capture_output=True, text=True,
                          env=env, timeout=600)


def _rows(out, metric):
    report = json.loads((out / "compare.json").read_text())
    return {r["benchmark"]: r for r in report["rows"] if r["metric"] == metric}


def test_one_instruction_more_fails_every_time(repo_root, repo, tmp_path):
    for attempt in range(2):
        out = tmp_path / f"out{attempt}"
        r = _ci_compare(repo_root, repo, out, "--base", "HEAD~1",
                        "--simulate")
        assert r.returncode == 1, r.stdout + r.stderr
        rows = _rows(out, "callgrind/instructions/")
        assert rows["BM_Kernel"]["baseline"]["center"] == 102
        assert rows["BM_Kernel"]["contender"]["center"] == 103
        assert rows["BM_Kernel"]["verdict"] == "regression"
        assert rows["BM_Steady"]["change"] == 0.0
        assert rows["BM_Steady"]["verdict"] == "no significant change"
        assert "round 1 of 1" in r.stderr, "one run a side"


def test_the_same_commit_twice_passes_with_no_change(repo_root, repo, tmp_path):
    out = tmp_path / "out"
    r = _ci_compare(repo_root, repo, out, "--base", "HEAD~1", "--head",
                    "HEAD~1", "--allow-same-commit", "--simulate")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = _rows(out, "callgrind/instructions/")
    assert set(rows) == {"BM_Kernel", "BM_Steady"}
    for row in rows.values():
        assert row["change"] == 0.0
        assert row["verdict"] == "no significant change"


def test_without_a_pmu_callgrind_is_the_default_and_says_so(repo_root, repo,
                                                             tmp_path):
    no_pmu = tmp_path / "sysfs"
    (no_pmu / "software").mkdir(parents=True)
    env = dict(os.environ, PMUBENCH_SYSFS_PMUS=str(no_pmu))
    out = tmp_path / "out"
    r = _ci_compare(repo_root, repo, out, "--base", "HEAD~1", env=env)
    assert "no hardware PMU: counting instructions with callgrind" in r.stderr
    assert r.returncode == 1, r.stdout + r.stderr


def test_without_valgrind_it_says_what_to_install(repo_root, repo, tmp_path):
    no_pmu = tmp_path / "sysfs"
    (no_pmu / "software").mkdir(parents=True)
    # A PATH with git and bash but no valgrind.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("git", "bash", "cat", "mktemp", "stat", "rm", "mkdir",
                 "dirname", "basename", "id", "grep", "sed", "tr", "sort",
                 "sleep", "kill", "rmdir", "env"):
        path = shutil.which(tool)
        if path:
            os.symlink(path, bin_dir / tool)
    env = dict(os.environ, PMUBENCH_SYSFS_PMUS=str(no_pmu), PATH=str(bin_dir))
    r = _ci_compare(repo_root, repo, tmp_path / "out", "--base", "HEAD~1",
                    "--filter", "BM_Steady", "--reps", "1", "--rounds", "1",
                    "--min-time", "0.01", env=env)
    assert "apt-get install valgrind" in r.stderr, r.stderr
    assert "counting instructions with callgrind" not in r.stderr


def test_the_head_takes_its_cases_by_the_base_runs_costs(repo_root, repo,
                                                          tmp_path):
    """--no-attribute: the head's workers are balanced by the base's JSON."""
    log = tmp_path / "args.log"
    out = tmp_path / "out"
    cmd = [str(repo_root / "scripts" / "ci_compare.sh"),
           "--build-cmd", "true", "--run-cmd",
           f'printf "%s\\n" "$*" >> {log}; exec "$(cat binary.txt)"',
           "--out", str(out), "--base", "HEAD~1", "--simulate",
           "--no-attribute"]
    r = subprocess.run(cmd, cwd=repo, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    runs = [line for line in log.read_text().splitlines()
            if "--benchmark_out=" in line]
    def out_file(line):
        return line.split("--benchmark_out=")[1].split()[0]
    [base] = [line for line in runs if out_file(line).endswith("/.base.1.json")]
    [head] = [line for line in runs if out_file(line).endswith("/.head.1.json")]
    assert "--pmubench_shard_costs" not in base
    assert f"--pmubench_shard_costs={out}/.base.1.json" in head
    assert "--pmubench_jobs=" in head
    rows = _rows(out, "callgrind/instructions/")
    assert rows["BM_Kernel"]["contender"]["center"] == 103
    assert rows["BM_Steady"]["change"] == 0.0
