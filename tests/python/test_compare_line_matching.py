"""Attribution a reviewer can trust (issue 39, item 5): source lines
matched within their function across a commit that moves code, line
shares that never sum past 100%, template arguments shortened in tables
(whole in the JSON), glibc's variants named for what they are."""

from __future__ import annotations

import json

import pytest
from test_compare_attribution import _compare, _exact_run, _write

from pmubench.render import attribution_lines, compare_text
from pmubench.verdicts import lines as line_match
from pmubench.verdicts import symbols

# StepA's five lines, each's count over 100 iterations.
STEP_A = [(10, 3000), (11, 500), (12, 4000), (13, 500), (14, 2000)]


def _lines(function: str, body: list[tuple[int, int]], shift: int = 0,
           file: str = "/src/steps.cc") -> list[tuple[str, str, int, int]]:
    return [(function, file, number + shift, count) for number, count in body]


def _pair(tmp_path, base_lines, head_lines, base_fns, head_fns):
    base = _write(tmp_path / "b.json", [_exact_run("BM_Steps", base_fns, lines=base_lines)])
    head = _write(tmp_path / "h.json", [_exact_run("BM_Steps", head_fns, lines=head_lines)])
    (a,) = _compare(base, head).attributions
    return a


def test_a_function_moved_down_20_lines_unchanged_gives_no_line_rows(tmp_path):
    # StepA moves down 20 lines; StepB (no line table) takes 500 more.
    fns = {"StepA()": 10000, "StepB()": 5000}
    a = _pair(tmp_path, _lines("StepA()", STEP_A), _lines("StepA()", STEP_A, 20),
              fns, {**fns, "StepB()": 5500})
    assert [m.name for m in a.functions] == ["StepB()"]
    assert a.lines == []


def test_a_moved_function_with_one_changed_line_shows_that_line_matched(tmp_path):
    changed = [(n, c + 700 if n == 12 else c) for n, c in STEP_A]
    a = _pair(tmp_path, _lines("StepA()", STEP_A), _lines("StepA()", changed, 20),
              {"StepA()": 10000}, {"StepA()": 10700})
    (line,) = a.lines
    assert line.status == "changed" and line.delta == pytest.approx(7.0)
    assert line.name == "src/steps.cc:32 (was 12) StepA()"
    assert line.share == pytest.approx(1.0)


def test_a_line_inserted_above_the_others_leaves_them_matched(tmp_path):
    # A new line 11 (cost 300); the old 11-14 become 12-15. By offset from
    # the first line every one of those four would pair with the wrong line.
    inserted = [(10, 3000), (11, 300)] + [(n + 1, c) for n, c in STEP_A[1:]]
    a = _pair(tmp_path, _lines("StepA()", STEP_A), _lines("StepA()", inserted),
              {"StepA()": 10000}, {"StepA()": 10300})
    assert [(m.name, m.status, m.delta) for m in a.lines] == [
        ("src/steps.cc:11 StepA()", "added", pytest.approx(3.0))]


def test_lines_that_move_both_ways_share_at_most_all_of_the_change(tmp_path):
    # +10 on one line and -3 on another: a row change of +7. Shares of the
    # row's change would be 143% and -43%; of what the lines moved, 77%
    # and -23%.
    changed = [(10, 4000), (11, 200), (12, 4000), (13, 500), (14, 2000)]
    a = _pair(tmp_path, _lines("StepA()", STEP_A), _lines("StepA()", changed),
              {"StepA()": 10000}, {"StepA()": 10700})
    assert a.row_delta == pytest.approx(7.0)
    assert [round(m.share, 3) for m in a.lines] == [round(10 / 13, 3), round(-3 / 13, 3)]
    assert sum(abs(m.share) for m in a.lines) <= 1.0 + 1e-12
    # The functions still add up to the row's change.
    assert a.functions[0].share == pytest.approx(1.0)


def test_rekey_leaves_functions_whose_numbers_did_not_move_alone():
    base = {("f", "a.cc", 1): 1.0, ("f", "a.cc", 2): 2.0}
    head = {("f", "a.cc", 1): 1.0, ("f", "a.cc", 2): 5.0, ("g", "a.cc", 9): 1.0}
    assert line_match.rekey(base, head, {}) == (head, {})


LONG = ("Codec<std::basic_string<char, std::char_traits<char>, std::allocator<char> > >"
        "::Encode(std::vector<int, std::allocator<int> > const&)")


def test_tables_shorten_templates_and_name_glibcs_variants_json_keeps_them(tmp_path,
                                                                         run_tool):
    base_fns = {LONG: 10000, "__memmove_avx_unaligned_erms": 2000}
    head_fns = {LONG: 10500, "__memmove_avx_unaligned_erms": 2600}
    lines = lambda fns: [(f, "/src/codec.cc", 40 + i, d)  # noqa: E731
                         for i, (f, d) in enumerate(fns.items())]
    base = _write(tmp_path / "b.json", [_exact_run("BM_Codec", base_fns, lines=lines(base_fns))])
    head = _write(tmp_path / "h.json", [_exact_run("BM_Codec", head_fns, lines=lines(head_fns))])
    c = _compare(base, head)
    text = "\n".join(attribution_lines.text_lines(c))
    assert "memmove/memcpy (glibc, AVX unaligned)" in text
    assert "Codec<…>::Encode(std::vector<…> const&)" in text
    assert "std::allocator" not in text and "__memmove" not in text
    assert "line src/codec.cc:40 Codec<…>::Encode(std::vector<…> const&)" in text
    assert "std::allocator" not in compare_text.render(c)
    report = json.loads(run_tool("scripts/compare.py", base, head, "--format", "json").stdout)
    names = {m["name"]: m["shown"] for m in report["attributions"][0]["functions"]}
    assert names == {LONG: "Codec<…>::Encode(std::vector<…> const&)",
                     "__memmove_avx_unaligned_erms": "memmove/memcpy (glibc, AVX unaligned)"}


@pytest.mark.parametrize("name, shown", [
    ("__memcpy_avx_unaligned_erms", "memmove/memcpy (glibc, AVX unaligned)"),
    ("__memset_evex_unaligned_erms", "memset (glibc, EVEX unaligned)"),
    ("__strlen_avx2", "strlen (glibc, AVX2)"),
    ("__memcpy_chk_avx_unaligned", "memmove/memcpy (glibc, checked, AVX unaligned)"),
    ("__strlen_frobnicate", "__strlen_frobnicate"),      # not a variant we know
    ("memcpy", "memcpy"),
    ("std::map<int, int>::find(int const&)", "std::map<int, int>::find(int const&)"),
    ("operator<<(std::ostream&, Foo<int> const&)", "operator<<(std::ostream&, Foo<int> const&)"),
    ("Unbalanced<a very long argument", "Unbalanced<a very long argument"),
])
def test_shown_names(name, shown):
    assert symbols.shown(name) == shown


def test_a_real_commit_that_moves_code_shows_only_the_lines_that_changed(fixture_path):
    # Built and run under callgrind (fixtures/compare/README.md): StepB moved
    # down 20 lines and its one line lengthened by 25 nops; the helper
    # inlined into Caller lengthened by 16.
    base = str(fixture_path("compare", "moved_base.json"))
    c = _compare(base, str(fixture_path("compare", "moved_longer.json")))
    rows = {a.benchmark: [(m.name, m.status, m.delta) for m in a.lines]
            for a in c.attributions}
    assert rows == {
        "BM_Three": [("runner/attribution_cases.cc:42 (was 22) StepB()", "changed", 25.0)],
        "BM_Inlined": [("runner/attribution_helper.h:17 Caller()", "changed", 16.0)]}
    # One line inserted at the top of Caller(): that line, nothing else
    # (by number: 5 line rows; by offset from the function's first: 4,
    # none of them the new line).
    c = _compare(base, str(fixture_path("compare", "moved_inserted.json")))
    (a,) = c.attributions
    assert [(m.name, m.status, m.delta, m.share) for m in a.lines] == [
        ("runner/attribution_cases.cc:26 Caller()", "added", 5.0, 1.0)]
