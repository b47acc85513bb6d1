"""--pmubench_jobs end to end under --pmubench_simulate (valgrind's
callgrind): a part of the default suite (the binary //benches:all) run in
2 workers and in 1 reports every count equal, the rows in the same order,
and the same console but for times; a worker whose valgrind is killed mid-run
(tests/runner/jobs_cases.cc, BM_JobsKillsItself with PMUBENCH_JOBS_TEST_KILL
set) fails the case it ran by name, another worker runs the rest, exit 1,
and so does a run in one process; a
family with a complexity fit is fitted once, as serially; with
--pmubench_profile=instructions the workers' profiles are the serial run's;
--pmubench_jobs=0 exits 2 before valgrind starts. CTest's jobs_simulate
runs this file with the binaries' paths in PMUBENCH_BENCHES_ALL and
PMUBENCH_JOBS_CASES; without them (a Python-only run) it is skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

_SUITE = os.environ.get("PMUBENCH_BENCHES_ALL", "")
_CASES = os.environ.get("PMUBENCH_JOBS_CASES", "")
_INSTRUCTIONS = "callgrind/instructions/"
# About a fifth of the default suite, in several families of one and of
# several instances.
_PART = ("--benchmark_filter=BM_(StdMap|BtreeMap)Lookup|BM_Int|BM_Double"
         "|BM_Format|BM_Split")

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None,
                                reason="needs valgrind (apt-get install valgrind)")
_needs_suite = pytest.mark.skipif(
    not _SUITE or not _CASES,
    reason="needs the C++ build's benches/all and runner_jobs_cases "
           "(CTest's jobs_simulate sets their paths)")


def _run(tmp_path, binary, name, *args, env=None):
    out = tmp_path / name
    proc = subprocess.run(
        [binary, "--pmubench_simulate", f"--benchmark_out={out}",
         "--benchmark_out_format=json", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, **(env or {})})
    doc = json.loads(out.read_text()) if out.exists() else None
    return proc, doc


def _table_but_times(console):
    """The console's rows from the table's first rule on, each row's two
    times (value and unit, twice) and rates per second taken out."""
    lines = console.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("---"))
    table = []
    for line in lines[start:]:
        words = line.split()
        if line.startswith("BM_") and len(words) > 5:
            words = [w for w in words[:1] + words[5:] if "_per_second=" not in w]
        table.append(" ".join(words))
    return table


@_needs_suite
def test_two_workers_count_what_one_process_counts_row_for_row(tmp_path):
    one, doc_one = _run(tmp_path, _SUITE, "one.json", _PART, "--pmubench_jobs=1")
    two, doc_two = _run(tmp_path, _SUITE, "two.json", _PART, "--pmubench_jobs=2")
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    rows_one = [(b["name"], b["run_type"], b[_INSTRUCTIONS]) for b in doc_one["benchmarks"]]
    rows_two = [(b["name"], b["run_type"], b[_INSTRUCTIONS]) for b in doc_two["benchmarks"]]
    assert len(rows_one) >= 20
    assert rows_two == rows_one
    for a, b in zip(doc_one["benchmarks"], doc_two["benchmarks"]):
        exact = {k: v for k, v in a.items() if not re.search("time|per_second|case_seconds", k)}
        assert {k: b[k] for k in exact} == exact, a["name"]
    assert _table_but_times(two.stdout) == _table_but_times(one.stdout)
    keys = ("pmubench_backend", "pmubench_valgrind", "pmubench_events")
    assert [doc_two["context"][k] for k in keys] == [doc_one["context"][k] for k in keys]


def _profile_lines(console):
    """The profile tables of a console, as printed under each case's rows."""
    return [line for line in console.splitlines() if line.startswith("  ")]


@_needs_suite
def test_two_workers_profile_what_one_process_profiles(tmp_path):
    """Under callgrind a case's profile is of its measured batch, so the
    worker that ran it renders it: every pmubench_profile* field (functions,
    lines, per-iteration lines, allocation sites) and the table under each
    case as a serial run gives them."""
    part = "--benchmark_filter=BM_(StdMap|BtreeMap)Lookup/(16|256)$|BM_Split|BM_IntAdd"
    runs = {}
    for jobs in (1, 2):
        proc, doc = _run(tmp_path, _SUITE, f"{jobs}.json", part,
                         "--pmubench_profile=instructions", f"--pmubench_jobs={jobs}")
        assert proc.returncode == 0, proc.stderr
        runs[jobs] = (proc.stdout, doc["benchmarks"])
    (console_one, rows_one), (console_two, rows_two) = runs[1], runs[2]
    assert [r["name"] for r in rows_two] == [r["name"] for r in rows_one]
    for a, b in zip(rows_one, rows_two):
        fields = {k: v for k, v in a.items() if k.startswith("pmubench_profile")}
        assert "pmubench_profile_per_iteration" in fields, a["name"]
        assert {k: v for k, v in b.items() if k.startswith("pmubench_profile")} == fields
    assert any(r.get("pmubench_profile_alloc_sites_per_iteration") for r in rows_two)
    lines = _profile_lines(console_two)
    assert sum("profile callgrind/instructions/" in line for line in lines) == len(rows_one)
    assert lines == _profile_lines(console_one)
    assert not list(tmp_path.glob("callgrind.out*"))


# Under callgrind a run in one process runs its cases in a process forked
# from it (framework/runner/run/jobs_run.h, JobsRequest::fork), which ends
# as a killed case's child does: the same failure by name as a worker's.
_KILLED = {2: r"--pmubench_jobs worker [12] of 2", 1: r"process forked to run the cases"}


@_needs_suite
@pytest.mark.parametrize("jobs", [2, 1])
def test_a_killed_worker_fails_its_case_by_name_and_the_rest_run(tmp_path, jobs):
    proc, doc = _run(tmp_path, _CASES, "out.json", f"--pmubench_jobs={jobs}",
                     env={"PMUBENCH_JOBS_TEST_KILL": "1"})
    assert proc.returncode == 1, proc.stderr
    rows = {b["name"].split("/iterations")[0]: b for b in doc["benchmarks"]
            if b["run_type"] == "iteration"}
    assert list(rows) == ["BM_JobsPages/1", "BM_JobsPages/3", "BM_JobsFit/1",
                          "BM_JobsFit/2", "BM_JobsFit/4", "BM_JobsKillsItself",
                          "BM_JobsNops", "BM_JobsAfterKill", "BM_JobsMoreNops"]
    assert rows["BM_JobsNops"][_INSTRUCTIONS] == 52  # 50 nops and the loop's 2
    assert rows["BM_JobsMoreNops"][_INSTRUCTIONS] == 102
    assert rows["BM_JobsAfterKill"][_INSTRUCTIONS] == 22  # run by another worker
    assert rows["BM_JobsKillsItself"]["error_occurred"] is True
    assert "signal 9" in rows["BM_JobsKillsItself"]["error_message"]
    assert re.search(_KILLED[jobs] + r" ended: [^;]*signal 9[^;]*; 1 of its \d+ cases failed "
                     r"with it: BM_JobsKillsItself/iterations:16\n", proc.stderr)
    assert not list(tmp_path.glob("callgrind.out*"))


@_needs_suite
def test_a_family_with_a_complexity_fit_runs_whole(tmp_path):
    """BM_JobsFit (->Complexity(oN)) fitted once, as serially: a fit over
    instances split between workers would give a BigO row per part."""
    _, one = _run(tmp_path, _CASES, "one.json", "--benchmark_filter=BM_JobsFit",
                  "--pmubench_jobs=1")
    _, two = _run(tmp_path, _CASES, "two.json", "--benchmark_filter=BM_JobsFit",
                  "--pmubench_jobs=3")
    names = [b["name"] for b in two["benchmarks"]]
    assert names == [b["name"] for b in one["benchmarks"]]
    assert names.count("BM_JobsFit/iterations:16_BigO") == 1
    assert [b[_INSTRUCTIONS] for b in two["benchmarks"][:3]] == \
        [b[_INSTRUCTIONS] for b in one["benchmarks"][:3]]


@_needs_suite
def test_zero_jobs_exits_two_before_valgrind_starts(tmp_path):
    proc, doc = _run(tmp_path, _CASES, "out.json", "--pmubench_jobs=0")
    assert proc.returncode == 2
    assert "--pmubench_jobs=0: give the number of worker processes" in proc.stderr
    assert doc is None
    assert "valgrind" not in proc.stderr.lower().replace("--pmubench_simulate", "")


@_needs_suite
def test_workers_under_a_valgrind_started_by_hand_are_refused(tmp_path):
    # Their workers would run natively: the run must be started with
    # --pmubench_simulate, which gives each worker its own valgrind.
    proc = subprocess.run(
        ["valgrind", "-q", "--tool=callgrind", "--collect-atstart=no", _CASES,
         "--pmubench_jobs=2"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2
    assert "--pmubench_jobs=2 under a valgrind started by hand" in proc.stderr
    assert "BM_Jobs" not in proc.stdout
