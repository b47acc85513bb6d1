"""--pmubench_shard=I/N end to end: runner_simulate_cases (cases of exactly
known instruction counts, tests/runner/simulate_cases.cc) run whole and in
shards. Shards 1/3, 2/3 and 3/3 run every case once and, joined by
scripts/merge.py --shards, equal the unsharded run row for row under
--pmubench_simulate (valgrind's callgrind); a costs file balances the shards;
a shard without a case writes an empty run; bad values exit 2 before any
case runs. CTest runs this file with the binary's path in
PMUBENCH_SIM_CASES; without it (a Python-only run) only ci_compare.sh's check of --shard runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import binary_commits

from pmubench.runs import merge

_CASES = os.environ.get("PMUBENCH_SIM_CASES", "")
_INSTRUCTIONS = "callgrind/instructions/"
# Six instances, cheap under valgrind.
_FILTER = "--benchmark_filter=BM_SimNops|BM_SimPaused|BM_SimKeepRunning"

_needs_cases = pytest.mark.skipif(
    not _CASES, reason="needs the C++ build's runner_simulate_cases "
                       "(CTest's shard_simulate sets its path)")


def _run(tmp_path, *args):
    return subprocess.run([_CASES, _FILTER, *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)


def _listed(tmp_path, *args):
    """The instances a run with `args` would run, as it lists them."""
    r = _run(tmp_path, "--benchmark_list_tests", *args)
    assert r.returncode == 0, r.stderr
    return r.stdout.split(), r.stderr


def _simulated(tmp_path, name, *args):
    out = tmp_path / name
    r = _run(tmp_path, "--pmubench_simulate", f"--benchmark_out={out}",
             "--benchmark_out_format=json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


@_needs_cases
def test_every_case_is_in_exactly_one_of_three_shards(tmp_path):
    everything, _ = _listed(tmp_path)
    assert len(everything) == 6
    shards = [_listed(tmp_path, f"--pmubench_shard={i}/3")[0] for i in (1, 2, 3)]
    assert sorted(sum(shards, [])) == sorted(everything)
    assert shards[0] == everything[0::3]  # round robin in registration order


@_needs_cases
@pytest.mark.skipif(shutil.which("valgrind") is None,
                    reason="needs valgrind (apt-get install valgrind)")
def test_three_shards_joined_equal_the_unsharded_run(tmp_path):
    whole = _simulated(tmp_path, "whole.json")
    docs = [(f"s{i}.json", _simulated(tmp_path, f"s{i}.json", f"--pmubench_shard={i}/3"))
            for i in (3, 1, 2)]
    joined = merge.join_shards(docs)
    rows = [(b["name"], b["run_type"], b[_INSTRUCTIONS]) for b in whole["benchmarks"]]
    assert len(rows) == 6
    assert [(b["name"], b["run_type"], b[_INSTRUCTIONS])
            for b in joined["benchmarks"]] == rows
    assert joined["context"]["pmubench_backend"] == whole["context"]["pmubench_backend"]


@_needs_cases
def test_a_costs_file_balances_longest_first_and_says_once_what_it_lacks(tmp_path):
    everything, _ = _listed(tmp_path)
    costly, missing = everything[0], everything[-1]
    costs = tmp_path / "previous.json"
    costs.write_text(json.dumps({"context": {}, "benchmarks": [
        {"name": n, "run_name": n, "run_type": "iteration", "iterations": 10,
         "real_time": 1000.0 if n == costly else 1.0, "time_unit": "ms"}
        for n in everything if n != missing]}))
    first, err = _listed(tmp_path, "--pmubench_shard=1/2",
                         f"--pmubench_shard_costs={costs}")
    second, _ = _listed(tmp_path, "--pmubench_shard=2/2",
                        f"--pmubench_shard_costs={costs}")
    # The costly case alone outweighs the other four; the uncosted one goes
    # to the shard with fewer cases.
    assert first == [costly, missing]
    assert second == [n for n in everything if n not in (costly, missing)]
    assert err.count("does not name 1 of the 6 cases") == 1


@_needs_cases
def test_a_shard_without_a_case_writes_an_empty_run_and_exits_0(tmp_path):
    out = tmp_path / "empty.json"
    r = _run(tmp_path, "--pmubench_shard=7/7", f"--benchmark_out={out}",
             "--benchmark_out_format=json")
    assert r.returncode == 0, r.stderr
    assert "--pmubench_shard=7/7 selects none of the 6 cases" in r.stderr
    doc = json.loads(out.read_text())
    assert doc["benchmarks"] == []
    assert doc["context"]["pmubench_shard"] == "7/7"


@_needs_cases
@pytest.mark.parametrize("args, message", [
    (["--pmubench_shard=4/3"], "--pmubench_shard=4/3: give I/N"),
    (["--pmubench_shard=0/2"], "--pmubench_shard=0/2: give I/N"),
    (["--pmubench_shard=x"], "--pmubench_shard=x: give I/N"),
    (["--pmubench_shard=1/2", "--pmubench_shard_costs=NOTJSON"],
     "--pmubench_shard_costs=NOTJSON: not a run"),
    (["--pmubench_shard=1/2", "--pmubench_shard_costs=absent.json"],
     "--pmubench_shard_costs=absent.json: cannot be read"),
    (["--pmubench_shard_costs=NOTJSON"], "add --pmubench_shard=I/N"),
])
def test_bad_input_exits_2_naming_the_flag_before_any_case_runs(tmp_path, args, message):
    (tmp_path / "NOTJSON").write_text('{"benchmarks": "no"}')
    out = tmp_path / "out.json"
    r = _run(tmp_path, "--pmubench_simulate", f"--benchmark_out={out}", *args)
    assert r.returncode == 2
    assert message in r.stderr
    assert "SIMULATED" not in r.stderr + r.stdout  # valgrind never started
    assert not out.exists()


_BASE = os.environ.get("PMUBENCH_KERNEL_BASE", "")
_SLOWER = os.environ.get("PMUBENCH_KERNEL_SLOWER", "")


def _ci_compare(repo_root, repo, out, *args):
    """ci_compare.sh of HEAD~1 against HEAD, each commit's binary named in
    binary.txt (no C++ build per commit)."""
    return subprocess.run(
        [str(repo_root / "scripts" / "ci_compare.sh"), "--build-cmd", "true",
         "--run-cmd", 'exec "$(cat binary.txt)"', "--base", "HEAD~1",
         "--simulate", "--out", str(out), *args],
        cwd=repo, capture_output=True, text=True, timeout=600)


def _verdicts(compare_json):
    """Each row's verdict, and its change where it is exact (the times are
    valgrind's, which differ run to run and are never gated)."""
    return sorted((r["benchmark"], r["metric"], r["verdict"],
                   r.get("change") if "instructions" in r["metric"] else None)
                  for r in json.loads(compare_json.read_text())["rows"])


@pytest.mark.skipif(not (_BASE and _SLOWER and shutil.which("valgrind")),
                    reason="needs the simulate kernels and valgrind "
                           "(CTest's shard_simulate sets their paths)")
def test_ci_compare_shards_joined_give_the_unsharded_verdict(repo_root, tmp_path):
    repo = binary_commits(tmp_path / "repo", _BASE, _SLOWER,
                          "one more instruction per iteration")
    whole = _ci_compare(repo_root, repo, tmp_path / "whole")
    assert whole.returncode == 1, whole.stderr  # BM_Kernel: a regression
    for i in (1, 2):
        r = _ci_compare(repo_root, repo, tmp_path / f"shard{i}", "--shard", f"{i}/2")
        assert r.returncode == 0, r.stderr
        assert f"shard {i}/2:" in r.stderr
        assert not (tmp_path / f"shard{i}" / "compare.json").exists()
    merge_py = str(repo_root / "scripts" / "merge.py")
    for side in ("base", "head"):
        subprocess.run(["/usr/bin/python3", merge_py, "--shards",
                        str(tmp_path / f"{side}.json"),
                        *(str(tmp_path / f"shard{i}" / f"{side}.json") for i in (1, 2))],
                       check=True)
    joined = tmp_path / "joined.json"
    r = subprocess.run(["/usr/bin/python3", str(repo_root / "scripts" / "compare.py"),
                        str(tmp_path / "base.json"), str(tmp_path / "head.json"),
                        "--format", "json", "--output", str(joined)],
                       capture_output=True, text=True)
    assert r.returncode == whole.returncode, r.stderr
    assert _verdicts(joined) == _verdicts(tmp_path / "whole" / "compare.json")


def test_ci_compare_refuses_a_bad_shard_before_any_work(repo_root, tmp_path):
    r = subprocess.run([str(repo_root / "scripts" / "ci_compare.sh"), "--shard", "3/2"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 2
    assert "--shard '3/2': give I/N" in r.stderr
