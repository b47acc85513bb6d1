"""Why a row changed, end to end under real valgrind (issue 33).

tests/runner/attribution_cases.cc built twice: a base, and a "longer" commit
that adds 25 nops to StepB (one of BM_Three's three functions) and 16 to
InlinedHelper (inlined into Caller, BM_Inlined's function). Each binary runs
once with --pmubench_simulate --pmubench_profile=instructions, and compare
names what moved, exactly; then the same through ci_compare.sh --simulate
on two commits of a test repository. CTest runs this file with the two
binaries' paths in PMUBENCH_ATTRIBUTION_BASE and PMUBENCH_ATTRIBUTION_LONGER;
without them (a Python-only run) it is skipped.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
import shutil
import subprocess

import pytest

from conftest import PYTHON, binary_commits

_BASE = os.environ.get("PMUBENCH_ATTRIBUTION_BASE", "")
_LONGER = os.environ.get("PMUBENCH_ATTRIBUTION_LONGER", "")
METRIC = "callgrind/instructions/"

pytestmark = [
    pytest.mark.skipif(not (_BASE and _LONGER),
                       reason="needs the C++ build's attribution cases (CTest's "
                              "attribution_simulate sets their paths)"),
    pytest.mark.skipif(shutil.which("valgrind") is None,
                       reason="needs valgrind (apt-get install valgrind)"),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{"base": path, "longer": path} of each binary's JSON, profiled."""
    out = tmp_path_factory.mktemp("attribution")
    files = {}
    for side, binary in (("base", _BASE), ("longer", _LONGER)):
        files[side] = out / f"{side}.json"
        subprocess.run([binary, "--pmubench_simulate", "--pmubench_profile=instructions",
                        f"--benchmark_out={files[side]}", "--benchmark_out_format=json"],
                       check=True, capture_output=True, timeout=600, cwd=out)
    return files


def _compare(repo_root, base, head, fmt="json"):
    return subprocess.run([PYTHON, str(repo_root / "scripts" / "compare.py"), str(base),
                           str(head), "--format", fmt], capture_output=True, text=True,
                          timeout=120)


def _rows(path):
    runs = json.loads(path.read_text())["benchmarks"]
    return {r["name"]: r for r in runs if r.get("run_type") == "iteration"}


def test_the_profile_adds_up_to_the_row_exactly(runs):
    for path in runs.values():
        for name, run in _rows(path).items():
            per_function = run["pmubench_profile_per_iteration"]
            iterations = run["pmubench_profile_per_iteration_iterations"]
            total = sum(e["segment_delta"] for e in per_function)
            assert total == run["pmubench_profile_per_iteration_segment_total"]
            assert total / iterations == pytest.approx(run[METRIC], rel=1e-12), name
            lines = run["pmubench_profile_lines_per_iteration"]
            assert sum(e["segment_delta"] for e in lines) == total


def test_the_lengthened_function_takes_the_whole_change(repo_root, runs):
    proc = _compare(repo_root, runs["base"], runs["longer"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    by_row = {(a["benchmark"], a["metric"]): a for a in report["attributions"]}
    assert ("BM_Steady", METRIC) not in by_row, "an unchanged case: no attribution"
    three = by_row[("BM_Three", METRIC)]
    assert three["kind"] == "exact" and three["row_delta"] == pytest.approx(25.0)
    first = three["functions"][0]
    assert first["name"] == "StepB()" and first["delta"] == pytest.approx(25.0)
    assert first["base"] == pytest.approx(51.0) and first["head"] == pytest.approx(76.0)
    assert first["share"] == pytest.approx(1.0)
    assert three["elsewhere"] == 0.0 and three["residual"] == 0.0
    line = three["lines"][0]
    assert line["name"].startswith("runner/attribution_cases.cc:")
    assert line["name"].endswith(" StepB()") and line["delta"] == pytest.approx(25.0)


def test_an_inlined_helper_counts_in_its_caller_at_its_own_line(repo_root, runs):
    report = json.loads(_compare(repo_root, runs["base"], runs["longer"]).stdout)
    inlined = [a for a in report["attributions"]
               if (a["benchmark"], a["metric"]) == ("BM_Inlined", METRIC)][0]
    assert inlined["functions"][0]["name"] == "Caller()"
    assert inlined["functions"][0]["delta"] == pytest.approx(16.0)
    helper = inlined["lines"][0]
    assert helper["name"].startswith("runner/attribution_helper.h:")
    assert helper["name"].endswith(" Caller()") and helper["delta"] == pytest.approx(16.0)
    assert inlined["residual"] == 0.0


def test_the_report_draws_a_differential_flame_graph(repo_root, runs, tmp_path):
    """reports/plot.py on the two real runs: BM_Three's graph shows StepB
    grown by exactly the 25 nops, at its source line; BM_Steady has none."""
    out = tmp_path / "report"
    proc = subprocess.run([PYTHON, str(repo_root / "reports" / "plot.py"),
                           str(runs["base"]), str(runs["longer"]), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    svg = (out / "diff-flame.BM_Three.svg").read_text()
    ET.fromstring(svg)
    step_b = next(t for t in re.findall(r"<title>([^<]*)</title>", svg)
                  if t.startswith("StepB"))
    assert "delta +25 " in step_b, step_b
    assert "exact per iteration (callgrind)" in svg
    assert not (out / "diff-flame.BM_Steady.svg").exists()
    assert 'href="diff-flame.BM_Three.svg"' in (out / "index.html").read_text()


def test_ci_compare_simulate_attributes_by_default(repo_root, tmp_path):
    repo = binary_commits(tmp_path / "repo", _BASE, _LONGER,
                          "StepB does 25 instructions more")
    out = tmp_path / "out"
    proc = subprocess.run(
        [str(repo_root / "scripts" / "ci_compare.sh"), "--build-cmd", "true",
         "--run-cmd", 'exec "$(cat binary.txt)"', "--out", str(out), "--base",
         "HEAD~1", "--simulate", "--filter", "BM_Three|BM_Steady"],
        cwd=repo, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Why it changed" in proc.stdout
    md = (out / "compare.md").read_text()
    assert "<details><summary>BM_Three callgrind/instructions/: +25 per " \
           "iteration, 100.0% in StepB()" in md
    assert "BM_Steady callgrind" not in md
    report = json.loads((out / "compare.json").read_text())
    assert [a["benchmark"] for a in report["attributions"]] == ["BM_Three"]
