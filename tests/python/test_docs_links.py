"""README.md and docs/*.md hold together (issue 24, item 1).

Every relative markdown link of README.md and of each docs/ page points at
a file that exists, and every #anchor (in the page, or page.md#anchor)
names a heading of its target, by GitHub's rule for heading ids. README
stays a five-minute read (under 250 lines) and indexes every docs/ page.
No page cites DESIGN.md (a file this repository never had: docs/design.md
replaces it) or ../shared. Every repository path a page names in code
(`framework/perf/counting/mmap_reader.h`, `framework/runner/plan/plan.{h,cc}`)
exists, so a move that forgets the docs fails here. Docstrings and C++
comments are held to the same rule by scripts/dev/check_docstring_paths.py
(tests/python/test_docstring_paths.py).
"""

from __future__ import annotations

import pathlib
import re
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
README_MAX_LINES = 250


def pages() -> list[pathlib.Path]:
    return [README] + sorted(DOCS.glob("*.md"))


FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) or [text](target "title"); images too (![alt](target)).
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def slug(heading: str) -> str:
    """GitHub's id for a heading: its text (markup dropped) lowercased,
    punctuation other than '-' and '_' removed, each space a '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = INLINE_CODE.sub(lambda m: m.group(2), text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    """The ids of a page's headings; a repeated id gets -1, -2, ... as on
    GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line number, target) of each link outside code."""
    out = []
    text = path.read_text(encoding="utf-8")
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(INLINE_CODE.sub("", line)):
            out.append((number, m.group(1)))
    return out


def broken_links(path: pathlib.Path) -> list[str]:
    problems = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, mailto:, ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(REPO)}:{number}: {target}"
        if not dest.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where}: no heading #{anchor} in {dest.relative_to(REPO)}")
    return problems


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_points_at_a_file_and_heading(page):
    assert broken_links(page) == []


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines < README_MAX_LINES, f"README.md has {lines} lines"


def test_the_readme_links_every_docs_page():
    linked = {(README.parent / target.partition("#")[0]).resolve()
              for _, target in links(README)}
    missing = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert missing == [], f"README.md does not link docs/{missing}"


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_page_cites_files_that_do_not_exist(page):
    text = page.read_text(encoding="utf-8")
    for gone in ("DESIGN.md", "../shared"):
        assert gone not in text, f"{page.relative_to(REPO)} mentions {gone}"


# A path from the repository's top: one of these folders, then more.
TOP_DIRS = ("framework", "scripts", "tests", "benches", "include", "reports",
            "docs", "cmake", "third_party", ".ci")
REPO_PATH = re.compile(
    rf"^(?:{'|'.join(re.escape(d) for d in TOP_DIRS)})/[\w./{{}},*-]*$")


def named_paths(text: str) -> list[str]:
    """The repository paths a page's code spans name, `a.{h,cc}` expanded
    to a.h and a.cc; globs and spans with spaces or flags are not paths."""
    out = []
    for line in prose_lines(text):
        for m in INLINE_CODE.finditer(line):
            span = m.group(2).strip()
            if not REPO_PATH.match(span) or "*" in span:
                continue
            brace = re.search(r"\{([^}]*)\}", span)
            if brace:
                out += [span[:brace.start()] + alt + span[brace.end():]
                        for alt in brace.group(1).split(",")]
            else:
                out.append(span)
    return out


def missing_paths(path: pathlib.Path) -> list[str]:
    return [f"{path.relative_to(REPO)}: `{named}` does not exist"
            for named in named_paths(path.read_text(encoding="utf-8"))
            if not (REPO / named.rstrip("/")).exists()]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_repository_path_a_page_names_exists(page):
    assert missing_paths(page) == []


# The checker itself, on pages written for the purpose.

def test_the_slug_is_githubs():
    assert slug("Hardware counters without the hardware (scripts/pmu-vm)") == \
        "hardware-counters-without-the-hardware-scriptspmu-vm"
    assert slug("What a snapshot costs, in instructions") == \
        "what-a-snapshot-costs-in-instructions"
    assert slug("Set up and run (Debian 12)") == "set-up-and-run-debian-12"
    assert slug("`--counters` and `pmu_running_fraction`") == \
        "--counters-and-pmu_running_fraction"


def test_a_broken_file_or_anchor_is_caught(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    (tmp_path / "b.md").write_text("# B\n\n## Two words\n\n## Two words\n", encoding="utf-8")
    page = tmp_path / "a.md"
    page.write_text(
        "# A\n\n[ok](b.md) [ok](b.md#two-words) [ok](b.md#two-words-1) [ok](#a)\n"
        "[web](https://example.com/x.md#nowhere) `[code](nowhere.md)`\n"
        "```\n[fenced](nowhere.md)\n# not a heading\n```\n"
        "[gone](c.md) [bad](b.md#three-words) [bad](#not-a-heading)\n",
        encoding="utf-8")
    assert broken_links(page) == [
        "a.md:9: c.md: no such file",
        "a.md:9: b.md#three-words: no heading #three-words in b.md",
        "a.md:9: #not-a-heading: no heading #not-a-heading in a.md",
    ]


def test_a_path_that_moved_is_caught(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    (tmp_path / "framework/perf").mkdir(parents=True)
    (tmp_path / "framework/perf/a.h").write_text("", encoding="utf-8")
    page = tmp_path / "p.md"
    page.write_text(
        "`framework/perf/a.h` `framework/perf/` `framework/perf/{a,b}.h`\n"
        "`framework/*/x.h` `scripts/test --only fuzz` `a.h`\n"
        "```\n`framework/gone.h`\n```\n", encoding="utf-8")
    assert missing_paths(page) == ["p.md: `framework/perf/b.h` does not exist"]
