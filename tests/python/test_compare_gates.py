"""compare.py end to end on what a comparison could catch (issue 21, item
0), selectors that name nothing (issue 22, item 12) and files from other
machines (issue 23, item 5): exit 4 and its headline in every format,
--allow-inconclusive, explicit thresholds refused with the reason, near
names, the machine at the top and --strict."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import time

import pytest
from conftest import PYTHON, REPO_ROOT

from pmubench.runs import merge

COMPARE = "scripts/compare.py"


def _round(slow: float, seed: int) -> dict:
    """One run of a suite of 3 repetitions without instruction counts (a
    machine without a PMU); BM_Slow's times are multiplied by slow."""
    runs = []
    for name, t in (("BM_Slow", 100.0), ("BM_Same", 50.0)):
        factor = slow if name == "BM_Slow" else 1.0
        for i in range(3):
            v = t * factor * (1 + 0.01 * ((i + seed) % 3))
            runs.append({"name": name, "family_index": 0 if name == "BM_Slow" else 1,
                         "per_family_instance_index": 0, "run_name": name,
                         "run_type": "iteration", "repetitions": 3,
                         "repetition_index": i, "threads": 1, "iterations": 1000,
                         "real_time": v, "cpu_time": v, "time_unit": "ns",
                         "task-clock": v, "page-faults": 0.0, "context-switches": 0.0})
    return {"context": {"host_name": "ci", "num_cpus": 2}, "benchmarks": runs}


@pytest.fixture
def two_rounds(tmp_path):
    """ci_compare.sh's defaults (--reps 3 --rounds 2) on a PMU-less machine,
    with a real +66% CPU-time regression in BM_Slow: the new user's trial."""
    paths = []
    for side, slow in (("base", 1.0), ("head", 1.66)):
        doc = merge.merge([(f"{side}{r}", _round(slow, r)) for r in range(2)])
        path = tmp_path / f"{side}.json"
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    return paths


def test_nothing_gated_is_inconclusive_exit_4_in_every_format(run_tool, two_rounds):
    proc = run_tool(COMPARE, *two_rounds)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("INCONCLUSIVE: nothing in this comparison could catch a slowdown: ")
    # The cause found in the files, not a guessed flag.
    assert ("no instruction-class counter with a non-zero value (page-faults is "
            "zero in both files); times need") in first
    assert "times need 4 rounds a side for the test at alpha 0.05, and these " \
           "files have 2 a side" in first
    assert "time=off" not in proc.stdout
    assert "Result: INCONCLUSIVE" in proc.stdout and "PASS" not in proc.stdout

    md = run_tool(COMPARE, *two_rounds, "--format", "markdown")
    assert md.returncode == 4
    assert md.stdout.startswith("### pmubench comparison: :warning: INCONCLUSIVE")
    assert ":white_check_mark:" not in md.stdout
    visible = md.stdout.split("<details>")[0]
    # The +66% rows are in sight, not only in the collapsed section.
    assert "| `BM_Slow` | cpu_time | 101 ns | 167.7 ns | +66.00% |" in visible
    assert "`BM_Same`" not in visible

    report = json.loads(run_tool(COMPARE, *two_rounds, "--format", "json").stdout)
    assert report["exit_code"] == 4 and report["result"] == "inconclusive"
    assert report["reason"].startswith("no instruction-class counter with a non-zero")


def test_allow_inconclusive_exits_0_and_still_says_it(run_tool, two_rounds):
    proc = run_tool(COMPARE, *two_rounds, "--allow-inconclusive")
    assert proc.returncode == 0
    assert proc.stdout.startswith("INCONCLUSIVE: ")
    md = run_tool(COMPARE, *two_rounds, "--allow-inconclusive", "--format", "markdown")
    assert md.returncode == 0 and ":white_check_mark:" not in md.stdout
    report = json.loads(run_tool(COMPARE, *two_rounds, "--allow-inconclusive",
                                 "--format", "json").stdout)
    assert report["exit_code"] == 0 and report["result"] == "inconclusive"


def test_an_explicit_threshold_is_refused_with_what_it_needs(run_tool, two_rounds):
    proc = run_tool(COMPARE, *two_rounds, "--threshold", "cpu_time=5")
    assert proc.returncode == 2 and proc.stdout == ""
    assert ("compare.py: error: --threshold cpu_time=5: gates nothing on these "
            "files: cpu_time needs 4 rounds a side for the test at alpha 0.05, "
            "and these files have 2 a side") in proc.stderr
    assert "ci_compare.sh --rounds 4" in proc.stderr


def test_a_gated_instruction_count_makes_it_conclusive(run_tool, fx_path):
    proc = run_tool(COMPARE, fx_path("instr_base.json"), fx_path("instr_base.json"))
    assert proc.returncode == 0
    assert not proc.stdout.startswith("INCONCLUSIVE")
    assert proc.stdout.splitlines()[-1].startswith("Result: PASS")


@pytest.fixture
def fx_path(fixture_path):
    return lambda name: str(fixture_path("compare", name))


@pytest.mark.parametrize("option, near", [
    (("--threshold", "instrutions=0.5"), "did you mean instructions"),
    (("--threshold", "*-misses=10"), "their metrics: real_time, cpu_time"),
    (("--threshold", "page_faults=off"), "did you mean page-faults"),
    (("--metrics", "instrutions"), "did you mean instructions"),
])
def test_a_selector_that_names_no_metric_is_refused(run_tool, fx_path, option, near):
    proc = run_tool(COMPARE, fx_path("instr_base.json"), fx_path("instr_regression.json"),
                    *option)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    assert f"{option[0]} {option[1]}: no metric of " in proc.stderr
    assert "instr_base.json or " in proc.stderr and near in proc.stderr


@pytest.mark.parametrize("option", [
    ("--threshold", "time=5"), ("--threshold", "default=3"),
    ("--threshold", "page-faults=3"),
    ("--threshold", "*faults=2"), ("--metrics", "time"), ("--metrics", "*-faults"),
])
def test_selectors_that_name_something_are_valid(run_tool, fx_path, option):
    proc = run_tool(COMPARE, fx_path("instr_base.json"), fx_path("instr_regression.json"),
                    *option)
    assert proc.returncode in (0, 1), proc.stderr


def _other_machine(tmp_path, fixture_path, **changes):
    doc = json.loads(fixture_path("compare", "base.json").read_text())
    doc["context"].update(changes)
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_another_machine_is_said_at_the_top_and_refused_by_strict(
        run_tool, tmp_path, fixture_path, fx_path):
    caches = json.loads(fixture_path("compare", "base.json").read_text())["context"]["caches"]
    caches[3]["size"] = 33554432
    other = _other_machine(tmp_path, fixture_path, host_name="runner-9", num_cpus=8,
                           caches=caches, pmubench_pmus="cpu,software")
    proc = run_tool(COMPARE, fx_path("base.json"), other)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("DIFFERENT MACHINES: the two files come from different machines")
    for said in ("host_name: 'vm' in the baseline, 'runner-9' in the contender",
                 "num_cpus: 2 in the baseline, 8 in the contender",
                 "caches: L3 105 MiB (shared by 2) in the baseline, "
                 "L3 32 MiB (shared by 2) in the contender",
                 "pmubench_pmus: "):
        assert said in first
    assert "Note: context differs: host_name" not in proc.stdout
    md = run_tool(COMPARE, fx_path("base.json"), other, "--format", "markdown").stdout
    assert "**Different machines:**" in md.split("| Benchmark |")[0]
    report = json.loads(run_tool(COMPARE, fx_path("base.json"), other,
                                 "--format", "json").stdout)
    assert len(report["machine_differences"]) == 4
    strict = run_tool(COMPARE, fx_path("base.json"), other, "--strict")
    assert strict.returncode == 2 and strict.stdout == ""
    assert "--strict: " in strict.stderr and "different machines" in strict.stderr
    assert "num_cpus: 2 in the baseline, 8 in the contender" in strict.stderr
    # Caches alone differ: still another machine.
    only_caches = _other_machine(tmp_path, fixture_path, caches=caches)
    assert run_tool(COMPARE, fx_path("base.json"), only_caches, "--strict").returncode == 2
    # The same machine passes --strict.
    assert run_tool(COMPARE, fx_path("base.json"), fx_path("rerun.json"),
                    "--strict").returncode == 0


def test_help_documents_inconclusive(run_tool):
    out = run_tool(COMPARE, "--help").stdout
    assert "--allow-inconclusive" in out
    assert "4 inconclusive" in out
    assert "INCONCLUSIVE" in out


def test_sigterm_while_writing_the_report_leaves_no_temp_file(tmp_path, fixture_path):
    # A comparison whose JSON report is large enough to take a while to write.
    doc = json.loads(fixture_path("compare", "base.json").read_text())
    doc["benchmarks"] = [dict(b, name=f"{b['name']}/{k}", run_name=f"{b['run_name']}/{k}")
                         for k in range(150) for b in doc["benchmarks"]]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for _ in range(8):
        proc = subprocess.Popen(
            [PYTHON, str(REPO_ROOT / COMPARE), str(big), str(big), "--format", "json",
             "-o", str(out_dir / "r.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seen = False
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if any(n.startswith(".pmubench-") for n in os.listdir(out_dir)):
                proc.send_signal(signal.SIGTERM)
                seen = True
                break
        proc.communicate(timeout=120)
        if seen and proc.returncode not in (0, 1, 4):
            break
        (out_dir / "r.json").unlink(missing_ok=True)
    else:
        pytest.skip("compare.py always finished before its temp file was seen")
    assert proc.returncode == 128 + signal.SIGTERM
    assert os.listdir(out_dir) == []


def test_changed_beyond_of_a_block_is_each_rows_changed_beyond():
    """gates.changed_beyond_block (a block's rows, as columns) is
    gates.changed_beyond of each row: NaN and infinite changes, a change
    just at the threshold, a move under the floor, an info metric."""
    from pmubench.verdicts import comparison as cmp
    from pmubench.verdicts import gates, thresholds
    cases = [(0.1, 1.0, 1.1), (0.0999999, 1.0, 1.0999999), (0.1000001, 1.0, 1.1000001),
             (float("nan"), 0.0, 0.0), (float("inf"), 0.0, 2.0), (float("-inf"), 0.0, -2.0),
             (-0.5, 4.0, 2.0), (0.5, 1e-9, 1.5e-9), (-0.0, 0.0, -0.0), (3.0, -1.0, 2.0),
             (1.0, 0.5, 1.0), (0.9, 0.5, 0.95)]
    for metric, floor in (("cpu_time", 0.0), ("instructions", 0.0), ("page-faults", 0.5),
                          ("context-switches", 0.0)):
        threshold = dataclasses.replace(thresholds.resolve(metric, [], "perf_event", False),
                                        floor=floor)
        changes, b_centers, c_centers = (list(c) for c in zip(*cases))
        rows = [cmp.Row("BM_X", metric, "", cmp.Side(b, 3, "repetitions", [b], 1),
                        cmp.Side(c, 3, "repetitions", [c], 1), change, None, None,
                        cmp.U_TEST, threshold, False, cmp.NO_CHANGE)
                for change, b, c in cases]
        assert gates.changed_beyond_block(changes, b_centers, c_centers, threshold) == [
            gates.changed_beyond(row) for row in rows], metric
