"""Counts simulated by pmubench's callgrind backend (issue 21, item 4):
deterministic whatever their class, gated with one run a side, refused
across backends, valgrind versions and cache geometries, and said to be
simulated at the top of every format. Fixtures: callgrind_*.json
(tests/python/fixtures/compare/README.md)."""

from __future__ import annotations

import json

import pytest

from pmubench.runs import benchjson
from pmubench.verdicts import comparison as cmp
from pmubench.runs import machines, matching
from pmubench.render import compare_markdown as render_markdown, compare_text as render_text
from pmubench.verdicts import thresholds

GEOMETRY = "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64"


@pytest.fixture
def fx(fixture_path):
    return lambda name: str(fixture_path("compare", name))


def _report(proc):
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


def test_a_a_comparison_of_simulated_counts_is_exact_and_passes(run_tool, fx):
    # The rerun's times are 37% slower (another load on the machine): one
    # run a side, times are not gated, every simulated count is.
    proc = run_tool("scripts/compare.py", fx("callgrind_base.json"),
                    fx("callgrind_rerun.json"), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = _report(proc)
    assert report["result"] == "pass" and report["reason"] is None
    simulated = [r for r in report["rows"] if r["metric"].startswith("callgrind/")]
    assert len(simulated) == 4 * 7
    for row in simulated:
        assert row["change"] == 0 and row["simulated"] and row["deterministic"]
        assert row["mode"] == "threshold only"
        assert row["verdict"] == "no significant change", row
    assert {r["verdict"] for r in report["rows"] if not r["simulated"]} == {"not gated"}
    # The same file on both sides: the same, exit 0, not 4 (inconclusive).
    same = run_tool("scripts/compare.py", fx("callgrind_base.json"), fx("callgrind_base.json"))
    assert same.returncode == 0 and "Result: PASS" in same.stdout
    text = run_tool("scripts/compare.py", fx("callgrind_base.json"),
                    fx("callgrind_rerun.json")).stdout
    for line in text.splitlines():
        if line.startswith("BM_") and "(threshold only)" in line:
            assert " +0.00% " in line, line


def test_simulated_counts_keep_their_class_threshold(run_tool, fx):
    proc = run_tool("scripts/compare.py", fx("callgrind_base.json"),
                    fx("callgrind_regression.json"), "--format", "json")
    assert proc.returncode == 1
    regressed = {(r["benchmark"], r["metric"]): r for r in _report(proc)["rows"]
                 if r["verdict"] == "regression"}
    assert set(regressed) == {
        ("BM_AccuracyNops", "callgrind/instructions/"),          # 102 -> 104
        ("BM_BranchShuffled", "callgrind/branch-misses/"),       # +6.3%
        ("BM_BranchShuffled", "callgrind/branch-miss-ratio/")}
    assert regressed[("BM_AccuracyNops", "callgrind/instructions/")]["threshold_pct"] == 0.5
    assert regressed[("BM_BranchShuffled", "callgrind/branch-misses/")]["threshold_pct"] == 5
    assert regressed[("BM_BranchShuffled", "callgrind/branch-misses/")]["metric_class"] == "cache"


@pytest.mark.parametrize("metric, simulated", [
    ("callgrind/instructions/", True), ("callgrind/LLC-load-misses/", True),
    ("callgrind/branch-miss-ratio/", True), ("LLC-load-misses", False),
    ("cpu/instructions/", False), ("instructions", False)])
def test_every_simulated_count_is_deterministic(metric, simulated):
    t = thresholds.resolve(metric, [])
    assert t.simulated == simulated
    assert t.deterministic == (simulated or t.metric_class == "deterministic")
    # 3 v 3, separated, +10%: gated only when deterministic.
    base = cmp.Side(100.0, 3, matching.REPETITIONS, [99.0, 100.0, 101.0])
    cont = cmp.Side(110.0, 3, matching.REPETITIONS, [109.0, 110.0, 111.0])
    verdict = cmp.judge(base, cont, t, False, 0.05).verdict
    assert verdict == (cmp.REGRESSION if t.deterministic else cmp.NOT_GATED)
    # Merged rounds do not turn a simulated count into run medians.
    rounds = cmp.Side(100.0, 6, matching.REPETITIONS, [100.0] * 6, rounds=2)
    more = cmp.Side(110.0, 6, matching.REPETITIONS, [110.0] * 6, rounds=2)
    assert (cmp.judge(rounds, more, t, False, 0.05).mode == cmp.U_TEST) == t.deterministic


@pytest.mark.parametrize("other, values", [
    ("callgrind_other_valgrind.json", ("valgrind-3.19.0", "valgrind-3.20.0")),
    ("callgrind_other_geometry.json", (GEOMETRY, "LL=33554432,16,64")),
    ("instr_base.json", ("callgrind", "perf_event")),
])
def test_different_backend_version_or_geometry_is_refused(run_tool, fx, other, values):
    for files in ((fx("callgrind_base.json"), fx(other)),
                  (fx(other), fx("callgrind_base.json"))):
        proc = run_tool("scripts/compare.py", *files)
        assert proc.returncode == 2, proc.stdout
        assert proc.stdout == ""
        assert "callgrind_base.json" in proc.stderr and other in proc.stderr
        for value in values:
            assert value in proc.stderr


def test_a_file_without_the_backend_key_is_perf_event(fx):
    assert machines.backend_of({}).name == "perf_event"
    base = benchjson.load(fx("instr_base.json"))
    explicit = benchjson.load(fx("instr_base.json"))
    explicit.context = {**explicit.context, "pmubench_backend": "perf_event"}
    assert not cmp.compare(base, explicit).backend.simulated


def test_every_format_says_the_counts_are_simulated(run_tool, fx):
    base = benchjson.load(fx("callgrind_base.json"))
    c = cmp.compare(base, base)
    said = ("Counts simulated by callgrind (valgrind-3.19.0; cache geometry "
            f"{GEOMETRY}): exact")
    assert render_text.render(c).startswith(said)
    markdown = render_markdown.render(c)
    assert said in markdown.split("| Benchmark |")[0]
    report = _report(run_tool("scripts/compare.py", fx("callgrind_base.json"),
                              fx("callgrind_base.json"), "--format", "json"))
    assert report["backend"] == {"name": "callgrind", "valgrind": "valgrind-3.19.0",
                                 "cache_geometry": GEOMETRY, "simulated": True,
                                 "description": report["backend"]["description"]}
    assert report["backend"]["description"].startswith(said)
    # Instructions only: the geometry is "none".
    base.context = {**base.context, "pmubench_cache_geometry": "none"}
    assert "no cache simulation: instructions only" in render_text.render(
        cmp.compare(base, base))
    # A hardware file says nothing of the kind.
    hw = benchjson.load(fx("instr_base.json"))
    assert "simulated" not in render_text.render(cmp.compare(hw, hw))


def test_one_instruction_more_in_a_hundred_is_a_regression():
    """+1 instruction on 102 (+0.98%): below the hardware 1%, beyond the
    simulated 0.5%; a simulated miss count keeps its 5%."""
    exact = thresholds.resolve("callgrind/instructions/", [])
    assert exact.pct == thresholds.SIMULATED_EXACT_PCT == 0.5
    assert thresholds.resolve("instructions", []).pct == 1
    assert thresholds.resolve("callgrind/LLC-load-misses/", []).pct == 5
    assert thresholds.resolve("callgrind/instructions/",
                              [thresholds.parse_override("instructions=2")]).pct == 2
    base = cmp.Side(102.0, 1, matching.SINGLE_RUN, [102.0])
    cont = cmp.Side(103.0, 1, matching.SINGLE_RUN, [103.0])
    judged = cmp.judge(base, cont, exact, higher_is_better=False, alpha=0.05)
    assert judged.verdict == cmp.REGRESSION


def test_a_file_without_the_simulated_counts_is_named_not_metrics(run_tool, fx, tmp_path):
    # Issue 31, item 9: no --metrics was given; the contender lacks every
    # callgrind/ count (a run without --pmubench_simulate's counters).
    contender = json.loads(open(fx("callgrind_base.json")).read())
    for run in contender["benchmarks"]:
        for key in [k for k in run if k.startswith("callgrind/")]:
            del run[key]
    path = tmp_path / "no_counts.json"
    path.write_text(json.dumps(contender))
    proc = run_tool("scripts/compare.py", fx("callgrind_base.json"), str(path),
                    "--format", "json")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    reason = _report(proc)["reason"]
    assert "--metrics" not in reason
    assert reason.startswith(f"{path} lacks the instruction-class counters the other "
                             "file has (callgrind/instructions/")
