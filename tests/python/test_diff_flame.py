"""The differential flame graph of reports/plot.py (issue 33 item 3): for a
base/head pair, each changed benchmark profiled on both sides gets
diff-flame.<benchmark>.svg (widths from the head, red where a frame grew,
blue where it shrank), linked from its row of the verdict table; files
written the way pmubench writes a simulated run's exact profile
(docs/flags_and_output.md), drawn by the real report code."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pmubench.report.write import write_report

SVG = "{http://www.w3.org/2000/svg}"
CONTEXT = {"date": "2026-11-27T12:00:00+00:00", "host_name": "vm", "num_cpus": 2,
           "library_build_type": "release", "pmubench_backend": "callgrind",
           "pmubench_valgrind": "valgrind-3.19.0",
           "pmubench_cache_geometry": "", "pmubench_version": "0.1.0"}
METRIC = "callgrind/instructions/"
ODD = "odd<&>\"'\x01\x7f\udcff()"
BASE = {"Grow(int)": 30000, "Shrink(int)": 50000, "Keep()": 20000, "Gone()": 4000}
HEAD = {"Grow(int)": 60000, "Shrink(int)": 25000, "Keep()": 20000, "New()": 20000}


def _run(name: str, functions: dict[str, int], profiled: bool = True,
         iterations: int = 100) -> dict:
    total = sum(functions.values())
    run = {"name": name, "run_name": name, "run_type": "iteration",
           "repetitions": 1, "repetition_index": 0, "threads": 1,
           "iterations": 1000, "real_time": 1.0, "cpu_time": 1.0,
           "time_unit": "ns", METRIC: total / iterations}
    if profiled:
        lines = [{"symbol": f, "file": "src/work.cc", "line": 10 + i,
                  "count": d / iterations, "segment_delta": d}
                 for i, (f, d) in enumerate(functions.items())]
        run.update({
            "pmubench_profile": [], "pmubench_profile_lines": [],
            "pmubench_profile_event": METRIC, "pmubench_profile_samples": total,
            "pmubench_profile_per_iteration": [
                {"symbol": f, "count": d / iterations, "segment_delta": d}
                for f, d in functions.items()],
            "pmubench_profile_lines_per_iteration": lines,
            "pmubench_profile_per_iteration_total": total / iterations,
            "pmubench_profile_per_iteration_segment_total": total,
            "pmubench_profile_per_iteration_iterations": iterations})
    return run


def _write(path: Path, runs: list[dict]) -> str:
    path.write_text(json.dumps({"context": CONTEXT, "benchmarks": runs}))
    return str(path)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("diffflame")
    base = _write(tmp / "base.json", [
        _run("BM_Move", BASE), _run("BM_Same", {"Loop()": 5000}),
        _run("BM_OneSide", {"Loop()": 5000}),
        _run("BM_Odd", {ODD: 7000, "Plain()": 1000})])
    head = _write(tmp / "head.json", [
        _run("BM_Move", HEAD), _run("BM_Same", {"Loop()": 5000}),
        _run("BM_OneSide", {"Loop()": 9000}, profiled=False),
        _run("BM_Odd", {ODD: 9000, "Plain()": 1000})])
    out = tmp / "out"
    write_report([base, head], str(out))
    return out


def _frames(svg: Path) -> dict[str, ET.Element]:
    """Each frame's <g> by the first line of its tooltip (the frame's name)."""
    root = ET.parse(svg).getroot()   # parses: well-formed XML
    return {g.find(f"{SVG}title").text.split("\n")[0]: g
            for g in root.iter(f"{SVG}g")}


def _fill(g: ET.Element) -> tuple[int, int, int]:
    return tuple(int(v) for v in re.findall(r"\d+", g.find(f"{SVG}rect").get("fill")))


def test_grower_red_shrinker_blue_widths_from_head(report):
    frames = _frames(report / "diff-flame.BM_Move.svg")
    red, blue = _fill(frames["Grow(int)"]), _fill(frames["Shrink(int)"])
    assert red[0] == 255 and red[1] < 100 and red[2] < 100     # +100%: full red
    assert blue[2] == 255 and blue[0] < 150 and blue[0] == blue[1]   # -50%
    assert _fill(frames["Keep()"]) == (235, 235, 235)
    width = {k: float(g.find(f"{SVG}rect").get("width")) for k, g in frames.items()}
    assert width["all"] == pytest.approx(1200)
    head_total = sum(HEAD.values())
    assert width["Grow(int)"] == pytest.approx(1200 * 60000 / head_total, abs=0.01)
    assert width["Shrink(int)"] == pytest.approx(1200 * 25000 / head_total, abs=0.01)
    # Second level: the function's source line, as wide as the function here.
    assert width["work.cc:10"] == pytest.approx(width["Grow(int)"], abs=0.01)


def test_tooltips_base_head_delta_per_iteration(report):
    frames = _frames(report / "diff-flame.BM_Move.svg")
    tip = frames["Grow(int)"].find(f"{SVG}title").text
    assert "base 300 -> head 600 per iteration, delta +300 (+100.00%)" in tip
    tip = frames["Shrink(int)"].find(f"{SVG}title").text
    assert "base 500 -> head 250 per iteration, delta -250 (-50.00%)" in tip
    new = frames["New()"]
    assert "added in head" in new.find(f"{SVG}title").text
    assert new.get("data-added") == "1" and new.find(f"{SVG}text").text.startswith("+")
    assert "Gone()" not in frames                     # no head width: not drawn
    assert "only in base (no head width): Gone() (40)" in frames["all"].find(
        f"{SVG}title").text
    text = (report / "diff-flame.BM_Move.svg").read_text()
    assert "exact per iteration (callgrind)" in text and "no call chains" in text


def test_page_links_changed_rows_only(report):
    page = (report / "index.html").read_text()
    assert '<a href="diff-flame.BM_Move.svg">' in page
    row = next(r for r in page.split("<tr") if ">BM_Move<" in r)
    assert 'href="diff-flame.BM_Move.svg"' in row
    assert not (report / "diff-flame.BM_Same.svg").exists()
    assert "diff-flame.BM_Same" not in page


def test_one_side_without_profile_none_and_said_why(report):
    assert not (report / "diff-flame.BM_OneSide.svg").exists()
    page = (report / "index.html").read_text()
    assert "No differential flame graph for BM_OneSide: only one file has a profile" in page


def test_odd_names_escaped(report):
    svg = report / "diff-flame.BM_Odd.svg"
    frames = _frames(svg)   # the SVG parses as XML
    name = next(k for k in frames if k.startswith("odd"))
    assert name == "odd<&>\"'\\x01\x7f\\xff()"
    assert "escaped" in frames[name].find(f"{SVG}title").text
    assert _fill(frames[name])[0] == 255    # 7000 -> 9000: grew


def test_vanished_frame_is_not_counted_as_too_narrow(report):
    text = (report / "diff-flame.BM_Move.svg").read_text()
    assert "narrower than" not in text


def test_folded_call_chains_on_both_sides(tmp_path):
    """Two runs and two --folded files: the benchmark's call chains, each
    side's samples scaled to the row's count per iteration."""
    base = _write(tmp_path / "base.json", [_run("BM_Move", BASE)])
    head = _write(tmp_path / "head.json", [_run("BM_Move", HEAD)])
    (tmp_path / "b.folded").write_text(
        "BM_Move;run;Grow(int) 30\nBM_Move;run;Shrink(int) 70\nOther;x 5\n")
    (tmp_path / "h.folded").write_text(
        "BM_Move;run;Grow(int) 60\nBM_Move;run;Shrink(int) 40\n")
    out = tmp_path / "out"
    write_report([base, head], str(out),
                 folded=[str(tmp_path / "b.folded"), str(tmp_path / "h.folded")])
    frames = _frames(out / "diff-flame.BM_Move.svg")
    assert set(frames) == {"BM_Move", "run", "Grow(int)", "Shrink(int)"}
    # Scaled: base 1040 per iteration over 100 samples, head 1250 over 100.
    tip = frames["Grow(int)"].find(f"{SVG}title").text
    assert "base 312 -> head 750 per iteration" in tip
    assert _fill(frames["Grow(int)"])[0] == 255
    assert _fill(frames["Shrink(int)"])[2] == 255
    assert "sampled call chains" in (out / "diff-flame.BM_Move.svg").read_text()
