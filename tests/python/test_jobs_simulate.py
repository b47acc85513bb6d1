"""--pmubench_jobs end to end under --pmubench_simulate (valgrind's
callgrind): a part of the default suite (the binary //benches:all) run in
2 workers and in 1 reports every count equal, the rows in the same order,
and the same console but for times; a worker whose valgrind is killed mid-run
(tests/runner/jobs_cases.cc, BM_JobsKillsItself with PMUBENCH_JOBS_TEST_KILL
set) fails its unfinished cases by name and keeps every other row, exit 1;
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
        exact = {k: v for k, v in a.items() if not re.search("time|per_second", k)}
        assert {k: b[k] for k in exact} == exact, a["name"]
    assert _table_but_times(two.stdout) == _table_but_times(one.stdout)
    keys = ("pmubench_backend", "pmubench_valgrind", "pmubench_events")
    assert [doc_two["context"][k] for k in keys] == [doc_one["context"][k] for k in keys]


@_needs_suite
def test_a_killed_worker_fails_its_cases_by_name_and_keeps_the_rest(tmp_path):
    proc, doc = _run(tmp_path, _CASES, "out.json", "--pmubench_jobs=2",
                     env={"PMUBENCH_JOBS_TEST_KILL": "1"})
    assert proc.returncode == 1, proc.stderr
    rows = {b["name"].split("/iterations")[0]: b for b in doc["benchmarks"]}
    assert list(rows) == ["BM_JobsPages/1", "BM_JobsPages/3", "BM_JobsKillsItself",
                          "BM_JobsNops", "BM_JobsAfterKill", "BM_JobsMoreNops"]
    assert rows["BM_JobsNops"][_INSTRUCTIONS] == 52  # 50 nops and the loop's 2
    assert rows["BM_JobsMoreNops"][_INSTRUCTIONS] == 102
    for lost in ("BM_JobsKillsItself", "BM_JobsAfterKill"):
        assert rows[lost]["error_occurred"] is True
        assert "signal 9" in rows[lost]["error_message"], rows[lost]
    assert "worker 2 of 2 ended" in proc.stderr
    assert "BM_JobsKillsItself/iterations:16, BM_JobsAfterKill/iterations:16" in proc.stderr
    assert not list(tmp_path.glob("callgrind.out*"))


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
