"""Folded stacks (--pmubench_profile_out) read into a tree and drawn as an
SVG flame graph, alone and through reports/plot.py --folded."""

from __future__ import annotations

import re

import pytest

from pmubench import benchjson
from pmubench.report import flame_plot
from pmubench.report.folded import parse_folded

FOLDED = """\
BM_A;[unknown];(anonymous namespace)::Hot() 300
BM_A;[unknown];(anonymous namespace)::Cold() 100
BM_B;main;f;g 200
BM_A;[unknown];(anonymous namespace)::Hot() 100
"""


def test_the_tree_sums_samples_down_every_path():
    root = parse_folded(FOLDED, "x.folded")
    assert root.total == 700
    a = root.children["BM_A"]
    assert a.total == 500
    unknown = a.children["[unknown]"]
    # Frame names may hold spaces; the count is after the last one.
    assert unknown.children["(anonymous namespace)::Hot()"].total == 400
    assert unknown.children["(anonymous namespace)::Cold()"].total == 100
    assert root.children["BM_B"].children["main"].children["f"].children["g"].total == 200
    assert [c.name for c in root.ordered_children()] == ["BM_A", "BM_B"]


@pytest.mark.parametrize("line, what", [
    ("BM_A;f", "positive whole COUNT"),
    ("BM_A;f x", "positive whole COUNT"),
    ("BM_A;f -3", "positive whole COUNT"),
    ("BM_A;f 0", "positive whole COUNT"),
    ("BM_A;;f 3", "an empty frame"),
    ("BM_A;f; 3", "an empty frame"),
])
def test_a_bad_line_names_the_file_and_line(line, what):
    with pytest.raises(benchjson.BadInput) as err:
        parse_folded("BM_A;f 1\n" + line + "\n", "p.folded")
    assert "p.folded:2:" in str(err.value)
    assert what in str(err.value)


def test_an_empty_file_is_bad_input():
    with pytest.raises(benchjson.BadInput, match="holds no stacks"):
        parse_folded("\n\n", "e.folded")


def _boxes(svg: str) -> dict[str, list[float]]:
    """Frame name (from its tooltip) -> widths of its boxes."""
    boxes: dict[str, list[float]] = {}
    for title, width in re.findall(
            r"<title>(.*?) \(\d+ samples, [0-9.]+%\)</title><rect x=\"[0-9.]+\" "
            r"y=\"\d+\" width=\"([0-9.]+)\"", svg):
        boxes.setdefault(title.replace("&#x27;", "'"), []).append(float(width))
    return boxes


def test_box_widths_are_shares_of_the_samples():
    svg, hidden = flame_plot.flame_svg(parse_folded(FOLDED, "x"), "t")
    assert hidden == 0
    boxes = _boxes(svg)
    full = flame_plot.WIDTH_PX
    assert boxes["all"] == [pytest.approx(full)]
    assert boxes["BM_A"] == [pytest.approx(full * 500 / 700, abs=0.01)]
    assert boxes["(anonymous namespace)::Hot()"] == [pytest.approx(full * 400 / 700, abs=0.01)]
    assert boxes["g"] == [pytest.approx(full * 200 / 700, abs=0.01)]
    assert "700 samples" in svg


def test_frames_too_narrow_to_see_are_counted_not_drawn():
    text = "big 100000\n" + "".join(f"tiny;leaf{i} 1\n" for i in range(5))
    svg, hidden = flame_plot.flame_svg(parse_folded(text, "x"), "t")
    # 'tiny' holds 5 of 100005 samples (0.06 px): it is the one frame left
    # out, and the walk does not go on to its leaves.
    assert hidden == 1
    assert "leaf" not in svg and ">tiny<" not in svg
    assert "1 frame(s) narrower than" in svg


def test_plot_draws_the_flame_graph_into_the_report(run_tool, fixture_path, tmp_path):
    folded = tmp_path / "run.folded"
    folded.write_text(FOLDED)
    out = tmp_path / "report"
    proc = run_tool("reports/plot.py", fixture_path("plot", "run_base.json"),
                    "--folded", folded, "-o", out)
    assert proc.returncode == 0, proc.stderr
    svg = (out / "flame.run.folded.svg").read_text()
    assert svg.startswith("<svg") and "Hot()" in svg
    page = (out / "index.html").read_text()
    assert 'data="flame.run.folded.svg"' in page
    assert 'id="profiles"' in page


def test_plot_refuses_a_bad_folded_file_before_writing(run_tool, fixture_path, tmp_path):
    folded = tmp_path / "bad.folded"
    folded.write_text("BM_A;f 1\nBM_A;g\n")
    out = tmp_path / "report"
    proc = run_tool("reports/plot.py", fixture_path("plot", "run_base.json"),
                    "--folded", folded, "-o", out)
    assert proc.returncode == 2
    assert f"{folded}:2:" in proc.stderr
    assert not out.exists()
