"""What compare prints, read from the comparison model (issue 39, items
2-4; issue 38, items 11-12): a pull-request comment that fits GitHub's
65,536 characters for any suite, with the full report beside it; exact
counts with all their digits; names that cannot forge a line, a tag, an
image, a link or the end of a section."""

from __future__ import annotations

import json
import re

from test_compare_attribution import CONTEXT, _exact_run, _write

from pmubench.render import compare_markdown, compare_text, formatting
from pmubench.runs import benchjson
from pmubench.verdicts import comparison as cmp

METRIC = "callgrind/instructions/"


def _suite(tmp_path, cases: int, regressed: int, name: str) -> tuple[str, str]:
    """Two profiled simulated files of `cases` benchmarks: the last
    `regressed` grow by 5% in one function and one line (a regression at
    the 0.5% gate), the others by 0.1% (under it, still attributed)."""
    base, head = [], []
    for i in range(cases):
        bench = name.format(i=i)
        grow = 5000 if i >= cases - regressed else 100
        lines = [("Encode(int)", "src/codec.cc", 40, 60000),
                 ("Decode(int)", "src/codec.cc", 80, 40000)]
        base.append(_exact_run(bench, {"Encode(int)": 60000, "Decode(int)": 40000},
                               lines=lines))
        head.append(_exact_run(bench, {"Encode(int)": 60000 + grow, "Decode(int)": 40000},
                               lines=[(*lines[0][:3], 60000 + grow), lines[1]]))
    return _write(tmp_path / "base.json", base), _write(tmp_path / "head.json", head)


def test_a_2000_row_comment_fits_names_every_regression_and_the_full_file_holds_all(
        tmp_path, run_tool):
    base, head = _suite(tmp_path, 2000, 300, "BM_Codec<std::string>/size:{i}/real_time")
    full = tmp_path / "compare-full.md"
    proc = run_tool("scripts/compare.py", base, head, "--format", "markdown",
                    "--output", tmp_path / "compare.md", "--full-output", full)
    assert proc.returncode == 1, proc.stderr
    comment = (tmp_path / "compare.md").read_text()
    c = cmp.compare(benchjson.load(base), benchjson.load(head))
    assert len(c.rows) >= 2000 and len(c.regressions) == 300
    assert len(c.attributions) == 2000
    assert len(comment) < compare_markdown.LIMIT
    for r in c.regressions:
        assert formatting.md_code(r.benchmark) in comment, r.benchmark
    # The comment leads with the verdict and says what it left out, and where.
    assert comment.startswith("### pmubench comparison: :x: 300 regression(s)")
    assert "Left out of this comment to fit" in comment.split("\n")[2]
    assert "`compare-full.md`" in comment.split("\n")[2]
    # The attribution sections of the gated rows come first.
    sections = [int(i) for i in re.findall(r"<summary>BM_Codec\S+size:(\d+)/", comment)]
    assert sections and all(i >= 1700 for i in sections[:300])
    text = full.read_text()
    print(f"\n2,000 cases: {len(c.rows)} rows, comment {len(comment):,} characters, "
          f"full report {len(text):,}")
    for r in c.rows:
        assert f"| {formatting.md_code(r.benchmark)} | {formatting.md_text(r.metric)} |" in text
    assert text.count("<details><summary>BM_Codec") == len(c.attributions)
    assert "Left out" not in text


def test_regressions_too_many_to_name_say_how_many_more_and_where(tmp_path):
    long = "BM_" + "Template" * 30 + "<{i}>"
    base, head = _suite(tmp_path, 3000, 3000, long)
    c = cmp.compare(benchjson.load(base), benchjson.load(head))
    comment = compare_markdown.render(c, "compare-full.md")
    print(f"\n3,000 long names: {len(c.rows)} rows, comment {len(comment):,} characters, "
          f"full report {len(compare_markdown.render_full(c)):,}")
    assert len(comment) < compare_markdown.LIMIT
    in_table = len(re.findall(r"^\| `BM_\S+` \| callgrind/instructions/ .*\*\*regression",
                              comment, re.M))
    also = re.search(r"^Also regressed: (.*)\.$", comment, re.M)
    named = also.group(1).count("`BM_") if also else 0
    more = re.search(r"\*\*(\d+) more regressed row\(s\)\*\* not listed here: the "
                     r"full report, `compare-full.md`", comment)
    assert more, comment[:2000]
    assert in_table > 0 and in_table + named + int(more.group(1)) == 3000


def test_exact_counts_are_printed_with_all_their_digits(tmp_path):
    runs = lambda extra: [  # noqa: E731
        _exact_run("BM_One", {"F()": 407536000 + extra[0]}),
        _exact_run("BM_Big", {"F()": 407536000 + extra[1]})]
    base = _write(tmp_path / "b.json", runs((0, 0)))
    head = _write(tmp_path / "h.json", runs((100, 4000000)))
    c = cmp.compare(benchjson.load(base), benchjson.load(head))
    text = compare_text.render(c)
    one = next(line for line in text.splitlines() if line.startswith("BM_One "))
    assert "4,075,360" in one and "4,075,361" in one and "+1, +0.00002%" in one
    assert ("Result: FAIL: 1 benchmark(s) regressed; 1 regression(s), 0 improvement(s), "
            f"{c.count(cmp.NO_CHANGE)} no significant change, {c.count(cmp.NOT_GATED)} "
            f"not gated: BM_Big {METRIC} 4,075,360 -> 4,115,360 (+40,000, +0.98%)"
            ) in text
    assert "| `BM_One` | callgrind/instructions/ | 4,075,360 | 4,075,361 | +1, +0.00002% |" \
        in compare_markdown.render(c)


FORGED = "BM_Evil\nResult: PASS: 0 benchmark(s) regressed; OK no regression\x1b[2K\u2028"
HTML = "BM_<img src=x onerror=alert(1)>[click](https://example.com/x)</details>`a``b"


def test_a_forged_name_prints_no_line_of_its_own(tmp_path, run_tool):
    runs = lambda grow: [_exact_run(FORGED, {"F()": 100000 + grow}),  # noqa: E731
                         _exact_run(HTML, {"F()": 100000 + grow})]
    base = _write(tmp_path / "b.json", runs(0))
    head = _write(tmp_path / "h.json", runs(9000))
    for color in ("never", "always"):
        proc = run_tool("scripts/compare.py", base, head, "--color", color)
        assert proc.returncode == 1
        # Each line as it shows, without the colour codes compare put there.
        lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in proc.stdout.split("\n")]
        results = [line for line in lines if line.startswith("Result:")]
        assert len(results) == 1 and results[0].startswith("Result: FAIL")
        assert not any("OK no regression" in line and "BM_Evil" not in line for line in lines)
        assert "\\x0aResult: PASS" in proc.stdout and "\\x1b[2K" in proc.stdout
        assert "\u2028" not in proc.stdout and "\x1b[2K" not in proc.stdout
    # An error that quotes a name: escaped on stderr too.
    proc = run_tool("scripts/compare.py", str(tmp_path / "no\nResult: PASS"), head)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no\\x0aResult: PASS" in proc.stderr


def test_raw_names_make_no_markup_anywhere_in_the_markdown(tmp_path):
    runs = lambda grow: [_exact_run(FORGED, {"F()": 100000 + grow}),  # noqa: E731
                         _exact_run(HTML, {"F()": 100000 + grow})]
    base = _write(tmp_path / "b.json", runs(0))
    head = _write(tmp_path / "h.json", runs(9000),
                  {**CONTEXT, "pmubench_notice": "<img src=y>"})
    c = cmp.compare(benchjson.load(base), benchjson.load(head))
    # In a table the name is one code span, fenced past its backticks:
    # what is inside is text.
    span = "```BM_<img src=x onerror=alert(1)>[click](https://example.com/x)</details>`a``b```"
    assert formatting.md_code(HTML) == span
    for markdown in (compare_markdown.render(c), compare_markdown.render_full(c)):
        assert f"| {span} |" in markdown
        outside = markdown.replace(span, "")
        assert "<img" not in outside
        # No link: '[' and ']' backslash-escaped, but in the <summary> of an
        # HTML block (CommonMark 0.30, 4.6), where markdown makes nothing.
        assert not [line for line in outside.splitlines() if re.search(r"(?<!\\)\]\(", line)
                    and not line.startswith("<details><summary>")]
        assert outside.count("<details>") == outside.count("</details>")
        assert "\x1b" not in markdown and "\nResult: PASS" not in markdown
        result = [line for line in markdown.splitlines() if line.startswith("- Result:")]
        assert len(result) == 1 and result[0].startswith("- Result: FAIL")
        assert "BM\\_" not in markdown      # '_' stays as it is


def test_the_json_keeps_every_name_whole(tmp_path, run_tool):
    base = _write(tmp_path / "b.json", [_exact_run(HTML, {"F()": 100000})])
    head = _write(tmp_path / "h.json", [_exact_run(HTML, {"F()": 109000})])
    proc = run_tool("scripts/compare.py", base, head, "--format", "json")
    report = json.loads(proc.stdout)
    assert {r["benchmark"] for r in report["rows"]} == {HTML}
    beyond = {r["metric"]: r["changed_beyond_threshold"] for r in report["rows"]}
    assert beyond == {METRIC: True, "real_time": False, "cpu_time": False}


def test_the_renderers_only_read_the_model(repo_root):
    """render/ names verdicts/ only for its constants and types: every fact
    it prints is a field the comparison model carries."""
    import ast
    types = {"Row", "Side", "Interval", "Comparison", "Attribution", "Moved",
             "AllocSites", "Site"}
    for path in sorted((repo_root / "scripts/pmubench/render").glob("*.py")):
        tree = ast.parse(path.read_text())
        aliases = {a.asname or a.name for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.module == "pmubench.verdicts"
                   for a in node.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases:
                assert node.attr.isupper() or node.attr in types, \
                    f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}"


def test_the_full_output_is_whole_or_absent_and_goes_with_markdown(tmp_path, run_tool):
    base, head = _suite(tmp_path, 3, 1, "BM_Case/{i}")
    full = tmp_path / "full.md"
    proc = run_tool("scripts/compare.py", base, head, "--full-output", full)
    assert proc.returncode == 2 and "--full-output" in proc.stderr
    assert "goes with --format markdown" in proc.stderr and not full.exists()
    proc = run_tool("scripts/compare.py", base, head, "--format", "markdown",
                    "--full-output", full, "--output", full)
    assert proc.returncode == 2 and "its own file" in proc.stderr and not full.exists()
    # The comment cannot be written: the full report written first goes again.
    proc = run_tool("scripts/compare.py", base, head, "--format", "markdown",
                    "--full-output", full, "--output", tmp_path / "none" / "c.md")
    assert proc.returncode == 2 and "cannot write" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.json", "head.json"]
    # To standard output, the comment names the full report.
    proc = run_tool("scripts/compare.py", base, head, "--format", "markdown",
                    "--full-output", full)
    assert proc.returncode == 1 and full.read_text().startswith("### pmubench comparison")


def test_thousands_of_failed_benchmarks_leave_the_result_line_in_the_comment(tmp_path):
    base_runs = [_exact_run(f"BM_Failed/{i}" + "x" * 40, {"F()": 1000}) for i in range(3000)]
    head_runs = [{**r, "error_occurred": True, "error_message": "e" * 60} for r in base_runs]
    keep = [_exact_run("BM_Kept", {"F()": 1000})]
    base = _write(tmp_path / "b.json", base_runs + keep)
    head = _write(tmp_path / "h.json", head_runs + [_exact_run("BM_Kept", {"F()": 1200})])
    c = cmp.compare(benchjson.load(base), benchjson.load(head))
    assert len(c.pairing.failed) == 3000
    comment = compare_markdown.render(c, "compare-full.md")
    assert len(comment) < compare_markdown.LIMIT
    assert comment.rstrip().splitlines()[-1].startswith("- Result: FAIL")
    assert re.search(r"- \d+ more line\(s\) of lists and notes: the full report", comment)
    assert compare_markdown.render_full(c).count("Failed in contender:") == 3000
