"""The gate on simulated instruction-class counts and its words agree
(issue 30, item 4): one default, thresholds.SIMULATED_EXACT_PCT, said the
same in compare.py --help, the header of every format, docs/comparing.md
and docs/ci_without_pmu.md, with what it catches: one instruction more per
iteration in a case of up to catches_one_in(pct) instructions."""

from __future__ import annotations

import json

import pytest

from conftest import REPO_ROOT
from pmubench.runs import benchjson, matching
from pmubench.render import compare_markdown, compare_text
from pmubench.verdicts import comparison as cmp
from pmubench.verdicts import thresholds

PCT = thresholds.SIMULATED_EXACT_PCT
GATE = (f"Simulated instruction-class counts fail beyond {PCT:g}% (the default): "
        "one instruction more per iteration fails a case of up to "
        f"{thresholds.catches_one_in(PCT)} instructions per iteration")


def _verdict(before: float, after: float) -> str:
    t = thresholds.resolve("callgrind/instructions/", [])
    base = cmp.Side(before, 1, matching.SINGLE_RUN, [before])
    cont = cmp.Side(after, 1, matching.SINGLE_RUN, [after])
    return cmp.judge(base, cont, t, higher_is_better=False, alpha=0.05).verdict


def test_the_default_catches_one_instruction_in_up_to_199():
    assert PCT == 0.5 and thresholds.catches_one_in(PCT) == 199
    assert _verdict(102, 103) == cmp.REGRESSION       # the accuracy kernel
    assert _verdict(199, 200) == cmp.REGRESSION       # +0.503%
    assert _verdict(200, 201) == cmp.NO_CHANGE        # +0.500%: not beyond
    assert _verdict(1000, 1005) == cmp.NO_CHANGE      # 5 in 1,000
    assert _verdict(1000, 1006) == cmp.REGRESSION     # 6 in 1,000 (the docs' figure)
    assert _verdict(199, 198) == cmp.IMPROVEMENT
    assert thresholds.catches_one_in(0.1) == 999
    assert thresholds.catches_one_in(1) == 99
    with pytest.raises(ValueError):
        thresholds.catches_one_in(0)


def _with_instructions(fixture_path, tmp_path, name: str, count: float) -> str:
    data = json.loads(fixture_path("compare", "callgrind_base.json").read_text())
    for run in data["benchmarks"]:
        if run["name"] == name:
            run["callgrind/instructions/"] = count
    path = tmp_path / f"head_{count:g}.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_one_instruction_more_in_the_100_instruction_kernel_fails(
        run_tool, fixture_path, tmp_path):
    base = fixture_path("compare", "callgrind_base.json")
    head = _with_instructions(fixture_path, tmp_path, "BM_AccuracyNops", 103.0)
    proc = run_tool("scripts/compare.py", base, head, "--format", "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    row = next(r for r in report["rows"] if r["benchmark"] == "BM_AccuracyNops"
               and r["metric"] == "callgrind/instructions/")
    assert row["verdict"] == "regression" and row["threshold_pct"] == PCT
    # The same kernel at 102 on both sides passes (an A/A).
    same = run_tool("scripts/compare.py", base, base)
    assert same.returncode == 0, same.stdout + same.stderr


def test_help_says_the_simulated_default_and_what_it_catches(run_tool):
    text = run_tool("scripts/compare.py", "--help").stdout
    flat = " ".join(text.split())
    assert f"simulated {PCT:g}% callgrind/instructions/" in flat
    assert "fails a case of up to 199 instructions per iteration" in flat
    assert f"except the instruction-class counts (instructions, branches, " \
           f"loads, stores): {PCT:g}%" in flat


def test_every_header_says_the_gate_in_force(fixture_path):
    base = benchjson.load(str(fixture_path("compare", "callgrind_base.json")))
    c = cmp.compare(base, base)
    assert GATE in compare_text.render(c).split("\nBaseline:")[0]
    markdown = compare_markdown.render(c)
    assert GATE in markdown.split("| Benchmark |")[0]
    # An override is said as such, with what it catches.
    over = cmp.compare(base, base, [thresholds.parse_override(
        "callgrind/instructions/=0.1")])
    assert ("fail beyond 0.1% (--threshold callgrind/instructions/=0.1): one "
            "instruction more per iteration fails a case of up to 999") in \
        compare_text.render(over)
    off = cmp.compare(base, base, [thresholds.parse_override("instructions=off")])
    assert "Simulated instruction-class counts are not gated (--threshold " \
           "instructions=off)" in compare_text.render(off)
    # A hardware comparison has no such line.
    hw = benchjson.load(str(fixture_path("compare", "instr_base.json")))
    assert "Simulated instruction-class" not in compare_text.render(cmp.compare(hw, hw))


@pytest.mark.parametrize("doc", ["docs/comparing.md", "docs/ci_without_pmu.md",
                                 "README.md"])
def test_the_docs_say_the_same_threshold(doc):
    text = " ".join((REPO_ROOT / doc).read_text(encoding="utf-8").split())
    assert f"{PCT:g}%" in text
    assert "up to 199" in text
    # The words that disagreed before (issue 30): simulated instructions
    # at the hardware 1%, and one instruction per iteration in any case.
    assert "(instructions 1%, misses 5%)" not in text
    assert "a change of one instruction per iteration in a case fails" not in text
    assert "gated on one instruction per iteration on any" not in text
