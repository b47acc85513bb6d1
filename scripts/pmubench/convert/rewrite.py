"""Step 3, the rewrite: convert_source runs the steps over one file's text
and returns its Result; the case functions' and fixtures' State.
"""

from __future__ import annotations

import re

from pmubench.convert.model import (
    KIND_FIXTURE, KIND_INCLUDE, KIND_MAIN, KIND_RANGE_XY, Note, PMUBENCH_INCLUDE,
    Result)
from pmubench.convert.patterns import (
    ACCESS_RE, CLASS_RE, FIXTURE_RE, RANGE_XY_RE, STATE_IN_PARAM_RE, STATE_RE)
from pmubench.convert.lexing import (
    CALL_TAIL, MEMBER_TAIL, NameIndex, code_mask, last_name, line_of, matching_brace,
    matching_paren, split_args)
from pmubench.convert.edits import Edits, rewrite_states
from pmubench.convert.registrations import (
    google_benchmark_functions, google_benchmark_uses, register_macros,
    register_wrapper_uses, why_state_is_kept)


def convert_source(text: str) -> Result:
    """Converts one Google Benchmark source file's text. Raises
    NotGoogleBenchmark when it is none."""
    code = code_mask(text)
    includes, macros, mains = google_benchmark_uses(text, code)
    # Where two edits start at one offset the first one added is kept
    # (Edits.add): the steps below add theirs in this order.
    edits = Edits(text)
    for m in includes:
        edits.add(m.start() + len(m.group(1)), m.end(), PMUBENCH_INCLUDE, KIND_INCLUDE)
    registered, notes = register_macros(text, code, macros, edits)
    notes += register_wrapper_uses(text, code, registered, edits)
    for m in mains:
        edits.add(m.start(), m.end(), "PMUBENCH_MAIN()", KIND_MAIN)
    gb_functions, gb_notes = google_benchmark_functions(text, code)
    notes += gb_notes
    calls = NameIndex(code, CALL_TAIL)
    kept_because = why_state_is_kept(text, code, gb_functions, calls)
    notes += _rewrite_case_functions(text, code, registered.case_functions,
                                     gb_functions, edits, calls)
    notes += _rewrite_fixtures(text, code, registered.fixture_classes, edits)
    for m in RANGE_XY_RE.finditer(code):
        index = "0" if m.group(3) == "x" else "1"
        edits.add(m.start(), m.end(), f"{m.group(1)}{m.group(2)}range({index})",
                  KIND_RANGE_XY)
    new_text, changes = edits.apply()
    notes += _kept_state_notes(new_text, kept_because)
    notes.sort(key=lambda n: (n.line, n.message))
    return Result(text=new_text, changes=changes, notes=_dedupe(notes), recognized=True)


def _rewrite_case_functions(text: str, code: str, case_functions: dict[str, int],
                            gb_functions: dict[str, str], edits: Edits,
                            calls: NameIndex) -> list[Note]:
    """The cases' own functions: benchmark::State in their parameter lists.
    The notes: cases left as they were."""
    notes = []
    for fn, registered_line in case_functions.items():
        if fn in gb_functions:
            notes.append(Note(
                registered_line,
                f"{fn} is a case here and also {gb_functions[fn]}: it cannot take "
                "both States; left as benchmark::State", blocking=True))
            continue
        found = False
        for _, end in calls.of(fn):
            open_at = end - 1
            close_at = matching_paren(code, open_at)
            if close_at < 0:
                continue
            if STATE_IN_PARAM_RE.match(code[open_at + 1:close_at]):
                first_arg = split_args(code, open_at, close_at)[0]
                rewrite_states(text, code, first_arg[0], first_arg[1], edits)
                found = True
            elif re.match(r"^\s*(?:const\s+)?(?:::\s*)?pmubench\s*::\s*State\b",
                          code[open_at + 1:close_at]):
                found = True
        if not found:
            notes.append(Note(
                registered_line,
                f"the case {fn} has no definition here whose first parameter is "
                f"benchmark::State: wherever it is defined, it must take pmubench::State&",
                blocking=True))
    return notes


def _fixture_classes_here(code: str) -> tuple[set[str], list[tuple[str, str, int, int]]]:
    """The classes derived (here) from benchmark::Fixture or from such a
    class, and every class with bases as (name, bases, offset of its body's
    '{', of its '}')."""
    derived: set[str] = set()
    classes = []
    for m in CLASS_RE.finditer(code):
        body_open = m.end() - 1
        body_close = matching_brace(code, body_open)
        classes.append((m.group(1), m.group(2), body_open, body_close))
    # Derived from a fixture: the classes naming Fixture among their bases,
    # then, class by class, those naming one of them (one pass over the
    # bases, not one per class).
    derived_from: dict[str | None, list[str]] = {}
    todo = []
    for cname, bases, *_ in classes:
        if re.search(r"(?<![\w])(?:benchmark|pmubench)\s*::\s*Fixture(?![\w])", bases):
            todo.append(cname)
        for b in bases.split(","):
            derived_from.setdefault(last_name(ACCESS_RE.sub("", b)), []).append(cname)
    while todo:
        cname = todo.pop()
        if cname not in derived:
            derived.add(cname)
            todo.extend(derived_from.get(cname, ()))
    return derived, classes


def _rewrite_fixtures(text: str, code: str, fixture_classes: dict[str, int],
                      edits: Edits) -> list[Note]:
    """benchmark::Fixture -> pmubench::Fixture, and benchmark::State ->
    pmubench::State in every member of a class derived (here) from
    benchmark::Fixture or from such a class. The notes: fixtures a macro
    uses that are not defined here."""
    derived, classes = _fixture_classes_here(code)
    for cname, _bases, body_open, body_close in classes:
        if cname not in derived or body_close < 0:
            continue
        rewrite_states(text, code, body_open, body_close, edits)
    # Members defined outside their class: void Table::SetUp(const benchmark::State&)
    members = NameIndex(code, MEMBER_TAIL)
    for cname in derived:
        for _, end in members.of(cname):
            open_at = end - 1
            close_at = matching_paren(code, open_at)
            if close_at > 0:
                rewrite_states(text, code, open_at, close_at, edits)
    for m in FIXTURE_RE.finditer(code):
        b = m.start() + len(m.group(1))
        edits.add(b, b + len("benchmark"), "pmubench", KIND_FIXTURE)
    notes = []
    for cname, line in fixture_classes.items():
        if cname not in derived:
            notes.append(Note(
                line,
                f"the fixture {cname} is not defined here as a class derived from "
                "benchmark::Fixture: wherever it is, it must derive from "
                "pmubench::Fixture", blocking=True))
    return notes


def _kept_state_notes(new_text: str, kept_because: dict[int, str]) -> list[Note]:
    """A note for every benchmark::State left in code, and why."""
    new_code = code_mask(new_text)
    notes = []
    for m in STATE_RE.finditer(new_code):
        line = line_of(new_text, m.start())
        notes.append(Note(line, kept_because.get(
            line, "benchmark::State kept: not the parameter of a case a BENCHMARK "
                  "macro registers (a case's pmubench::State cannot be passed here)")))
    return notes


def _dedupe(notes: list[Note]) -> list[Note]:
    seen = set()
    out = []
    for n in notes:
        if (n.line, n.message) in seen:
            continue
        seen.add((n.line, n.message))
        out.append(n)
    return out
