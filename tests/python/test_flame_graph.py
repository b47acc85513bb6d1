"""Folded stacks (--pmubench_profile_out) read into a tree and drawn as an
SVG flame graph, alone and through reports/plot.py --folded."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pmubench.runs import benchjson
from pmubench.report import flame_plot
from pmubench.runs.folded import parse_folded

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


# --- Hostile folded files (issue 22, item 9) --------------------------------

@pytest.mark.parametrize("count", [
    "²",                 # str.isdigit() says yes, int() says no
    "١٢",                # Arabic-Indic digits: int() takes them, no tool writes them
    "1" + "0" * 4000,    # 10^4000: parsed, then too large for a float
    "1" + "0" * 5000,    # beyond Python's int-to-str digit limit
    str(2 ** 64),        # one past the largest count a sample counter holds
], ids=["superscript-2", "arabic-indic-12", "10^4000", "10^5000", "2^64"])
def test_a_count_that_is_not_a_sample_count_is_bad_input_naming_the_line(count):
    with pytest.raises(benchjson.BadInput) as err:
        root = parse_folded(f"BM_A;f 1\nBM_A;g {count}\n", "p.folded")
        flame_plot.flame_svg(root, "t")  # the old code failed only here
    assert "p.folded:2:" in str(err.value)
    assert "COUNT" in str(err.value)


def test_the_largest_count_a_counter_holds_is_drawn():
    root = parse_folded(f"BM_A;f {2 ** 64 - 1}\nBM_A;g 1\n", "p.folded")
    svg, _ = flame_plot.flame_svg(root, "t")
    ET.fromstring(svg)


@pytest.mark.parametrize("count", ["²", "1" + "0" * 4000], ids=["superscript-2", "10^4000"])
def test_plot_exits_2_naming_the_line_of_a_bad_count(run_tool, fixture_path, tmp_path,
                                                     count):
    folded = tmp_path / "bad.folded"
    folded.write_text(f"BM_A;f 1\nBM_A;g {count}\n", encoding="utf-8")
    out = tmp_path / "report"
    proc = run_tool("reports/plot.py", fixture_path("plot", "run_base.json"),
                    "--folded", folded, "-o", out)
    assert proc.returncode == 2, proc.stderr
    assert f"{folded}:2:" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.folded"]


# Every code point XML 1.0 cannot hold, escaped or not (its Char production:
# #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]),
# that can sit inside a frame name (a line ends at \n only).
_NOT_XML = [chr(c) for c in range(0x20) if c not in (0x9, 0xA, 0xD)] + ["\ufffe", "\uffff"]


def _svg_texts(svg: str) -> tuple[list[str], list[str]]:
    """(tooltips, box labels) of a flame graph; the SVG must be well-formed XML."""
    tree = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    titles = [t.text or "" for t in tree.iter(f"{ns}title")]
    labels = [t.text or "" for g in tree.iter(f"{ns}g") for t in g.iter(f"{ns}text")]
    return titles, labels


@pytest.mark.parametrize("char", _NOT_XML, ids=lambda c: f"U+{ord(c):04X}")
def test_a_character_xml_cannot_hold_is_shown_escaped_and_the_tooltip_says_so(char):
    name = f"evil{char}frame"
    svg, _ = flame_plot.flame_svg(parse_folded(f"BM_A;{name} 5\nBM_A;ok 5\n", "x"), "t")
    titles, labels = _svg_texts(svg)   # raises on a malformed SVG
    shown = "evil\\x%02x" % ord(char) if ord(char) < 0x100 else "evil\\u%04x" % ord(char)
    tip = [t for t in titles if t.startswith(shown + "frame (5 samples")]
    assert len(tip) == 1, titles
    assert "escaped" in tip[0] and "XML" in tip[0]
    assert any(label.startswith(shown) for label in labels), labels
    # Names without such characters say nothing of escapes.
    assert [t for t in titles if t.startswith("ok (")] == ["ok (5 samples, 50.00%)"]


def test_separators_python_splits_lines_at_stay_inside_a_frame_name():
    # str.splitlines() also ends a line at \x0b \x0c \x1c-\x1e \x85 \u2028
    # \u2029; the folded format ends lines at \n only.
    odd = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    root = parse_folded(f"BM_A;a{odd}b 3\r\nBM_A;c 1\n", "x")
    assert sorted(root.children["BM_A"].children) == [f"a{odd}b", "c"]
    assert root.total == 4
    ET.fromstring(flame_plot.flame_svg(root, "t")[0])


def test_plot_writes_a_well_formed_svg_for_every_byte_in_a_frame_name(
        run_tool, fixture_path, tmp_path):
    """Every byte value but '\\n', ';' and ' ' inside a frame name, invalid
    UTF-8 included: exit 0 and an SVG any XML parser reads."""
    folded = tmp_path / "all-bytes.folded"
    frames = [b"f" + bytes([b]) + b"g" for b in range(256) if b not in b"\n; "]
    folded.write_bytes(b"".join(b"BM_A;" + f + b" 1\n" for f in frames))
    out = tmp_path / "report"
    proc = run_tool("reports/plot.py", fixture_path("plot", "run_base.json"),
                    "--folded", folded, "-o", out)
    assert proc.returncode == 0, proc.stderr
    titles, _ = _svg_texts((out / "flame.all-bytes.folded.svg").read_text(encoding="utf-8"))
    assert sum(t.startswith("f") for t in titles) == len(frames)
    assert any(t.startswith("f\\xffg (1 samples") for t in titles), titles
