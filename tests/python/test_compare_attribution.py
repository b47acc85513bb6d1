"""Why a row changed (issue 33): compare's attribution from the files'
profiles, on files written here the way pmubench writes them (the real
thing, under valgrind: test_attribution_simulate.py).

A simulated run's exact per-iteration profile is "pmubench_profile_per_iteration"
(and the _lines_ list): each entry's "segment_delta" over
"pmubench_profile_per_iteration_iterations" is its count per iteration
(docs/flags_and_output.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmubench.render import attribution_lines
from pmubench.runs import benchjson
from pmubench.verdicts import attribution
from pmubench.verdicts import comparison as cmp

CONTEXT = {"date": "2026-11-27T12:00:00+00:00", "host_name": "vm", "num_cpus": 2,
           "library_build_type": "release", "pmubench_backend": "callgrind",
           "pmubench_valgrind": "valgrind-3.19.0",
           "pmubench_cache_geometry": "", "pmubench_version": "0.1.0"}
METRIC = "callgrind/instructions/"


def _exact_run(name: str, functions: dict[str, int], iterations: int = 100,
               lines: list[tuple[str, str, int, int]] | None = None,
               profiled: bool = True, event: str = METRIC) -> dict:
    """A simulated run whose count is the sum of `functions` (segment
    deltas) over `iterations`."""
    total = sum(functions.values())
    run = {"name": name, "run_name": name, "run_type": "iteration",
           "repetitions": 1, "repetition_index": 0, "threads": 1,
           "iterations": 1000, "real_time": 1.0, "cpu_time": 1.0,
           "time_unit": "ns", METRIC: total / iterations}
    if profiled:
        run.update({
            "pmubench_profile": [],
            "pmubench_profile_lines": [],
            "pmubench_profile_event": event,
            "pmubench_profile_samples": total,
            "pmubench_profile_per_iteration": [
                {"symbol": f, "count": d / iterations, "segment_delta": d}
                for f, d in functions.items()],
            "pmubench_profile_lines_per_iteration": [
                {"symbol": f, "file": file, "line": line,
                 "count": d / iterations, "segment_delta": d}
                for f, file, line, d in (lines or [])],
            "pmubench_profile_per_iteration_total": total / iterations,
            "pmubench_profile_per_iteration_segment_total": total,
            "pmubench_profile_per_iteration_iterations": iterations})
    return run


def _write(path: Path, runs: list[dict], context: dict = CONTEXT) -> str:
    path.write_text(json.dumps({"context": context, "benchmarks": runs}))
    return str(path)


def _compare(base: str, head: str) -> cmp.Comparison:
    return cmp.compare(benchjson.load(base), benchjson.load(head))


THREE = {"StepA(int)": 30000, "StepB(int)": 50000, "StepC(int)": 20000}


def test_the_lengthened_function_takes_the_whole_change(tmp_path):
    base = _write(tmp_path / "b.json", [
        _exact_run("BM_Three", THREE), _exact_run("BM_Same", {"Loop()": 5000})])
    head = _write(tmp_path / "h.json", [
        _exact_run("BM_Three", {**THREE, "StepB(int)": 62000}),
        _exact_run("BM_Same", {"Loop()": 5000})])
    c = _compare(base, head)
    assert cmp.exit_code(c) == 1
    assert [a.benchmark for a in c.attributions] == ["BM_Three"], "BM_Same: none"
    a = c.attributions[0]
    assert a.kind == attribution.EXACT and a.row_delta == pytest.approx(120.0)
    first = a.functions[0]
    assert (first.name, first.base, first.head) == ("StepB(int)", 500.0, 620.0)
    assert first.delta == pytest.approx(120.0) and first.share == pytest.approx(1.0)
    assert len(a.functions) == 1, "the others did not move"
    assert a.elsewhere == pytest.approx(0.0, abs=1e-9)
    assert a.residual == pytest.approx(0.0, abs=1e-9)


def test_renamed_clones_and_mangled_names_match_added_and_removed_show(tmp_path):
    base = _write(tmp_path / "b.json", [_exact_run("BM_X", {
        "_Z4Workv": 4000, "Old()": 1000, "Hot(int) [clone .isra.0]": 500})])
    head = _write(tmp_path / "h.json", [_exact_run("BM_X", {
        "Work()": 4000, "New()": 3000, "Hot(int).constprop.0": 500})])
    a = _compare(base, head).attributions[0]
    by_name = {m.name: m for m in a.functions}
    assert set(by_name) == {"New()", "Old()"}, "Work and Hot matched: no change"
    assert by_name["New()"].status == "added" and by_name["New()"].base is None
    assert by_name["Old()"].status == "removed" and by_name["Old()"].delta == -10.0
    assert a.row_delta == pytest.approx(20.0)


def test_one_side_without_a_profile_is_a_note_and_the_verdict_stands(tmp_path):
    base = _write(tmp_path / "b.json", [_exact_run("BM_Three", THREE, profiled=False)])
    head = _write(tmp_path / "h.json", [
        _exact_run("BM_Three", {**THREE, "StepB(int)": 62000})])
    c = _compare(base, head)
    assert cmp.exit_code(c) == 1 and c.attributions == []
    assert len(c.attribution_notes) == 1
    assert "only one file has a profile" in c.attribution_notes[0]
    assert base in c.attribution_notes[0]
    plain = _compare(_write(tmp_path / "b2.json", [
        _exact_run("BM_Three", THREE, profiled=False)]), base)
    assert [r.verdict for r in c.rows if r.metric == METRIC] == [cmp.REGRESSION]
    assert plain.attribution_notes == [], "no profile on either side: silence"


def test_profiles_of_different_events_are_refused_by_name(tmp_path):
    base = _write(tmp_path / "b.json", [_exact_run("BM_Three", THREE)])
    head = _write(tmp_path / "h.json", [_exact_run(
        "BM_Three", {**THREE, "StepB(int)": 62000}, event="cpu-clock@100000")])
    c = _compare(base, head)
    assert c.attributions == [] and cmp.exit_code(c) == 1
    assert "different events" in c.attribution_notes[0]
    assert "callgrind/instructions/" in c.attribution_notes[0]
    assert "cpu-clock@100000" in c.attribution_notes[0]


# Not a template (a '<' right after the name would be shortened to "<…>").
ODD = "Odd|`*_[]~\\\"'&<script>alert(1)</script>\x01\x7f\u00e9\ufffd>()"


def test_odd_bytes_in_names_give_strict_json_and_escaped_markdown(tmp_path, run_tool):
    base = _write(tmp_path / "b.json", [_exact_run("BM_Odd", {ODD: 1000, "x": 10})])
    head = _write(tmp_path / "h.json", [_exact_run("BM_Odd", {ODD: 2000, "x": 10})])
    proc = run_tool("scripts/compare.py", base, head, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout, parse_constant=pytest.fail)
    assert report["attributions"][0]["functions"][0]["name"] == ODD
    md = run_tool("scripts/compare.py", base, head, "--format", "markdown").stdout
    section = md[md.index("#### Why it changed"):]
    section = section[:section.index("</details>")]
    assert "<script>" not in section and "&lt;script&gt;" in section
    assert "\x01" not in section.replace("\n", "")
    assert "\\`" in section and "&#124;" in section
    row = [line for line in section.splitlines()
           if line.startswith("| Odd") and "alert" in line][0]
    assert row.count("|") == 6, "five cells, no more"


def test_text_json_and_markdown_show_the_same_attribution(tmp_path, run_tool):
    lines = [("StepB(int)", "/src/b/steps.cc", 12, 50000),
             ("StepB(int)", "/src/b/steps.cc", 13, 0)]
    base = _write(tmp_path / "b.json", [_exact_run("BM_Three", THREE, lines=lines[:1])])
    head = _write(tmp_path / "h.json", [_exact_run(
        "BM_Three", {**THREE, "StepB(int)": 62000},
        lines=[("StepB(int)", "/src/h/steps.cc", 12, 50000),
               ("StepB(int)", "/src/h/steps.cc", 13, 12000)])])
    text = run_tool("scripts/compare.py", base, head).stdout
    assert "Why it changed" in text
    assert "BM_Three callgrind/instructions/: +120 per iteration, 100.0% in StepB(int)" in text
    # Lines match by file name and line: base and head built in /src/b
    # and /src/h; line 13 ran only in the head.
    assert "line h/steps.cc:13 StepB(int) (added)" in text
    md = run_tool("scripts/compare.py", base, head, "--format", "markdown").stdout
    assert "<details><summary>BM_Three callgrind/instructions/: +120 per iteration" in md
    report = json.loads(run_tool("scripts/compare.py", base, head, "--format",
                                 "json").stdout)
    line = report["attributions"][0]["lines"][0]
    assert (line["status"], line["delta"]) == ("added", 120.0)


def test_a_sampled_profile_is_estimated_with_its_sample_counts(tmp_path):
    def sampled(name, instructions, shares, samples):
        run = _exact_run(name, {}, profiled=False)
        del run[METRIC]
        run.update({"instructions": instructions,
                    "pmubench_profile": [{"symbol": s, "samples": int(samples * f),
                                          "share": f} for s, f in shares.items()],
                    "pmubench_profile_lines": [],
                    "pmubench_profile_event": "instructions@100000",
                    "pmubench_profile_samples": samples})
        return run
    context = {k: v for k, v in CONTEXT.items() if not k.startswith("pmubench_")}
    base = _write(tmp_path / "b.json", [sampled(
        "BM_S", 1000.0, {"A()": 0.5, "B()": 0.5}, 800)], context)
    head = _write(tmp_path / "h.json", [sampled(
        "BM_S", 1500.0, {"A()": 1 / 3, "B()": 2 / 3}, 1200)], context)
    c = _compare(base, head)
    a = c.attributions[0]
    assert a.kind == attribution.ESTIMATED and a.samples == (800, 1200)
    assert a.functions[0].name == "B()"
    assert a.functions[0].delta == pytest.approx(500.0)
    assert "estimated from 800 -> 1200 samples" in attribution_lines.kind_text(a)


@pytest.mark.parametrize("args, message", [
    (["--simulate", "--attribute=cycles"], "callgrind profiles instructions only"),
    (["--attribute="], "--attribute= needs an event"),
])
def test_ci_compare_attribute_usage_errors(tmp_path, repo_root, args, message):
    import subprocess
    proc = subprocess.run([str(repo_root / "scripts" / "ci_compare.sh"), *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == [], "nothing made"
