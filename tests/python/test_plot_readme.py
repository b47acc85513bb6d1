"""docs/reports.md against a real run (issue 23, item 7).

The test reads docs/reports.md: every file name it documents (a `...png` or
`...svg` with <placeholders>) must be one plot.py writes for a real run of
the suite (fixtures/plot/run_sections.json, a base and a contender, a
profile and a folded file), every file plot.py writes must match one of
them, and every section title it gives as an example
(`branch_prediction (4 families)`) must be a heading of the page. A change
to the docs without the tool, or to the tool without the docs, fails here.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from conftest import FIXTURES_DIR, PYTHON, REPO_ROOT

RUN = FIXTURES_DIR / "plot" / "run_sections.json"


def reports_section() -> str:
    """The whole of docs/reports.md (README's "Reports" section until issue 24)."""
    return (REPO_ROOT / "docs" / "reports.md").read_text(encoding="utf-8")


def documented_names(section: str) -> list[str]:
    """`<run>.<family>.scaling.png` and the like: backquoted PNG or SVG
    names with a <placeholder>; an example of a further part
    (`<run>.<source>.spread.2.png`) counts as its first part's name."""
    names = re.findall(r"`([^`\s]*<[^`\s]*>[^`\s]*\.(?:png|svg))`", section)
    return list(dict.fromkeys(re.sub(r"\.[0-9]+(\.(?:png|svg))$", r"\1", n) for n in names))


def documented_headings(section: str) -> list[str]:
    """`branch_prediction (4 families)` and the like."""
    return re.findall(r"`([^`<>]+ \(\d+ famil(?:y|ies)\))`", section)


def as_regex(pattern: str) -> re.Pattern:
    """A documented name as a regex: a placeholder is one or more
    characters; a figure's further parts may add `.N` before the suffix."""
    parts = re.split(r"<[^>]+>", pattern)
    body = "[^/]+?".join(re.escape(p) for p in parts)
    stem, dot, suffix = body.rpartition(r"\.")
    return re.compile(f"{stem}(\\.[0-9]+)?{dot}{suffix}")


def run_plot(*args) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, str(REPO_ROOT / "reports" / "plot.py"), *map(str, args)],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """plot.py on a real run (base) and an edited copy (head: one case
    profiled), with a folded file: every kind of output at once."""
    tmp = tmp_path_factory.mktemp("readme")
    base = tmp / "base.json"
    # Both sides profile BM_BranchSorted's page-faults, and the head doubles
    # them: a regression with a differential flame graph.
    for path, shares, scale in ((base, {"main": 1.0}, 1.0),
                                (tmp / "head.json", {"main": 0.5, "f": 0.5}, 2.0)):
        data = json.loads(RUN.read_text(encoding="utf-8"))
        for run in data["benchmarks"]:
            if run["run_name"] == "BM_BranchSorted" and run["run_type"] == "iteration":
                run["page-faults"] = 10.0 * scale + run["repetition_index"]
                run["pmubench_profile"] = [{"symbol": k, "samples": 3, "share": v}
                                           for k, v in shares.items()]
                run["pmubench_profile_event"] = "page-faults@1"
        path.write_text(json.dumps(data), encoding="utf-8")
    head = tmp / "head.json"
    folded = tmp / "run.folded"
    folded.write_text("BM_BranchSorted;main;f 3\n", encoding="utf-8")
    out = tmp / "report"
    proc = run_plot(base, head, "--folded", folded, "-o", out)
    assert proc.returncode == 0, proc.stderr
    files = sorted(p.name for p in out.iterdir()
                   if p.suffix in (".png", ".svg"))
    page = (out / "index.html").read_text(encoding="utf-8")
    return files, page


def test_the_page_documents_names_and_headings():
    section = reports_section()
    names = documented_names(section)
    # The kinds docs/reports.md must name; the test below checks each
    # against the run.
    for kind in (".scaling.png", ".bars.png", ".spread.png", "compare.", "flame.",
                 "profile.", "diff-flame."):
        assert any(kind in n for n in names), (kind, names)
    assert "branch_prediction (4 families)" in documented_headings(section)


def test_every_documented_name_is_written_and_every_written_file_is_documented(report):
    files, _ = report
    patterns = {name: as_regex(name) for name in documented_names(reports_section())}
    for name, regex in patterns.items():
        assert any(regex.fullmatch(f) for f in files), (
            f"docs/reports.md documents {name}, the report has no such file: {files}")
    for f in files:
        assert any(regex.fullmatch(f) for regex in patterns.values()), (
            f"plot.py wrote {f}, which docs/reports.md does not document")


def test_every_documented_heading_is_on_the_page(report):
    _, page = report
    headings = re.findall(r"<h3[^>]*>([^<]*)</h3>", page)
    for heading in documented_headings(reports_section()):
        assert heading in headings, (heading, headings)
    # The section of the families no source file is named for, as documented.
    assert "`no source file`" in reports_section()
    assert any(h.startswith("no source file (") for h in headings), headings
    # Each file's page has one heading per source file of its run.
    assert headings.count("branch_prediction (4 families)") == 2


@pytest.mark.parametrize("name, regex_matches, regex_rejects", [
    ("<run>.<family>.scaling.png", ["b.BM_X.scaling.png", "b.BM_X.scaling.2.png"],
     ["b.BM_X.bars.png", "scaling.png"]),
    ("compare.<metric>.png", ["compare.real_time.png", "compare.cpu_time.3.png"],
     ["run.real_time.png"]),
])
def test_as_regex(name, regex_matches, regex_rejects):
    regex = as_regex(name)
    assert all(regex.fullmatch(m) for m in regex_matches)
    assert not any(regex.fullmatch(m) for m in regex_rejects)
