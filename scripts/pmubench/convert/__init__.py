"""Rewriting a Google Benchmark source file to pmubench (scripts/convert).

    result = convert_source(text)
    result.text       # the converted file
    result.changes    # what was rewritten: Change(kind, line)
    result.notes      # what was left, and why: Note(line, message, blocking)

Pure functions over the file's text; the command line is scripts/convert.

What is rewritten (only in code: never inside comments or string literals):
  #include <benchmark/benchmark.h>, #include "benchmark/benchmark.h"
        -> #include <pmubench/pmubench.h>
  BENCHMARK(...), BENCHMARK_CAPTURE, BENCHMARK_TEMPLATE, _TEMPLATE1,
  _TEMPLATE2, BENCHMARK_WITH_ARG, _WITH_ARG2, _WITH_UNIT, BENCHMARK_RANGE,
  _RANGE2, BENCHMARK_F, _DEFINE_F, _REGISTER_F, BENCHMARK_TEMPLATE*_F,
  BENCHMARK_TEMPLATE*_DEFINE_F                      -> PMU_ + the same name
  BENCHMARK_MAIN()                                  -> PMUBENCH_MAIN()
  benchmark::Fixture                                -> pmubench::Fixture
  benchmark::State where it is a case's parameter   -> pmubench::State
        (the function a BENCHMARK macro registers, the parameter list after
        an _F macro, and the members of a class derived from the fixture)
  .range_x() / .range_y() (deprecated, not in pmubench::State)
        -> .range(0) / .range(1)

What stays: benchmark::DoNotOptimize, ClobberMemory, Counter, oN, kMillisecond
and every other name of Google Benchmark's; builder calls; any other
benchmark::State (a ->Setup() function, a function passed to
benchmark::RegisterBenchmark), each listed as a note. What pmubench cannot
take (benchmark::RegisterBenchmark, a main() of the file's own) is left as it
was and listed as a blocking note.

Converting a converted file changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PMUBENCH_INCLUDE = "<pmubench/pmubench.h>"

# Google Benchmark 1.7.1's registration macros (benchmark.h). Each has a PMU_
# twin in framework/runner/api/registration_macros.h with the same arguments.
CASE_MACROS = (
    "BENCHMARK",
    "BENCHMARK_WITH_ARG",
    "BENCHMARK_WITH_ARG2",
    "BENCHMARK_WITH_UNIT",
    "BENCHMARK_RANGE",
    "BENCHMARK_RANGE2",
    "BENCHMARK_CAPTURE",
    "BENCHMARK_TEMPLATE",
    "BENCHMARK_TEMPLATE1",
    "BENCHMARK_TEMPLATE2",
)
# Followed by the case body's parameter list: `(benchmark::State& st) {`.
FIXTURE_BODY_MACROS = (
    "BENCHMARK_F",
    "BENCHMARK_DEFINE_F",
    "BENCHMARK_TEMPLATE_F",
    "BENCHMARK_TEMPLATE1_F",
    "BENCHMARK_TEMPLATE2_F",
    "BENCHMARK_TEMPLATE_DEFINE_F",
    "BENCHMARK_TEMPLATE1_DEFINE_F",
    "BENCHMARK_TEMPLATE2_DEFINE_F",
)
FIXTURE_MACROS = FIXTURE_BODY_MACROS + ("BENCHMARK_REGISTER_F",)
ALL_MACROS = CASE_MACROS + FIXTURE_MACROS

# Kinds of change, in the order the summary lists them.
KIND_INCLUDE = "#include"
KIND_MAIN = "BENCHMARK_MAIN() -> PMUBENCH_MAIN()"
KIND_STATE = "benchmark::State -> pmubench::State"
KIND_FIXTURE = "benchmark::Fixture -> pmubench::Fixture"
KIND_RANGE_XY = "range_x()/range_y() -> range(0)/range(1)"


def macro_kind(name: str) -> str:
    return f"{name} -> PMU_{name}"


KIND_ORDER = ([KIND_INCLUDE] + [macro_kind(m) for m in ALL_MACROS]
              + [KIND_STATE, KIND_FIXTURE, KIND_RANGE_XY, KIND_MAIN])


@dataclass(frozen=True)
class Change:
    kind: str
    line: int


@dataclass(frozen=True)
class Note:
    line: int
    message: str
    # True: the converted file will not build, or a case will not count,
    # until a person finishes this by hand.
    blocking: bool = False


@dataclass
class Result:
    text: str
    changes: list[Change] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    # The input used Google Benchmark (an include or a macro) or is already
    # a pmubench file. False: not a file this tool converts.
    recognized: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def blocking(self) -> list[Note]:
        return [n for n in self.notes if n.blocking]


class NotGoogleBenchmark(ValueError):
    """The text neither includes benchmark/benchmark.h nor uses a BENCHMARK
    macro (nor is it a pmubench file already)."""


# --------------------------------------------------------------------------
# Lexing: which characters are code.


def code_mask(text: str) -> str:
    """text with every character of a comment, string literal or character
    literal replaced by a space (newlines kept), so that regular expressions
    over it see code only, at the same offsets as in text."""
    out = list(text)
    n = len(text)
    i = 0

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = i
            while j < n and text[j] != "\n":
                # A backslash before the newline continues the comment.
                if text[j] == "\\" and text.startswith("\n", j + 1):
                    j += 2
                    continue
                if text[j] == "\\" and text.startswith("\r\n", j + 1):
                    j += 3
                    continue
                j += 1
            blank(i, j)
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == '"':
            raw = _raw_string_prefix(text, i)
            if raw is not None:
                open_paren = text.find("(", i + 1)
                delim = text[i + 1:open_paren] if open_paren >= 0 else ""
                end = text.find(")" + delim + '"', open_paren + 1) if open_paren >= 0 else -1
                j = n if end < 0 else end + len(delim) + 2
            else:
                j = _end_of_quoted(text, i, '"')
            blank(i, j)
            i = j
        elif c == "'" and _starts_char_literal(text, i):
            j = _end_of_quoted(text, i, "'")
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def _raw_string_prefix(text: str, quote: int) -> str | None:
    """The prefix (R, u8R, LR, ...) when the '"' at quote opens a raw string."""
    m = re.search(r"(?<![\w])(?:u8|u|U|L)?R$", text[max(0, quote - 3):quote])
    return m.group(0) if m else None


def _starts_char_literal(text: str, i: int) -> bool:
    # 1'000'000: a digit separator, not a character literal.
    k = i - 1
    while k >= 0 and (text[k].isalnum() or text[k] == "_"):
        k -= 1
    word = text[k + 1:i]
    if not word:
        return True
    return word in ("L", "u", "U", "u8")  # L'x', u8'x': literals with a prefix


def _end_of_quoted(text: str, i: int, quote: str) -> int:
    j = i + 1
    n = len(text)
    while j < n:
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote or text[j] == "\n":
            return j + 1
        j += 1
    return n


def matching_paren(code: str, open_at: int) -> int:
    """Offset of the ')' that closes the '(' at open_at in masked code, or -1."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def matching_brace(code: str, open_at: int) -> int:
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return -1


def split_args(code: str, open_at: int, close_at: int) -> list[tuple[int, int]]:
    """The (start, end) spans of the comma-separated arguments between the
    parentheses at open_at and close_at, split as the preprocessor splits
    them (only parentheses group)."""
    spans = []
    depth = 0
    start = open_at + 1
    for k in range(open_at + 1, close_at):
        c = code[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((start, k))
            start = k + 1
    spans.append((start, close_at))
    return spans


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# --------------------------------------------------------------------------
# The conversion.

_INCLUDE_RE = re.compile(
    r'^([ \t]*#[ \t]*include[ \t]*)([<"])benchmark/benchmark\.h([>"])', re.M)
_PMUBENCH_INCLUDE_RE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:[\w./-]*/)?(?:framework/)?pmubench\.h[>"]', re.M)
_MACRO_RE = re.compile(
    r"(?<![\w])(" + "|".join(sorted(ALL_MACROS, key=len, reverse=True)) + r")\s*\(")
_PMU_MACRO_RE = re.compile(r"(?<![\w])PMU_BENCHMARK\w*\s*\(|(?<![\w])PMUBENCH_MAIN\s*\(")
_MAIN_RE = re.compile(r"(?<![\w])BENCHMARK_MAIN\s*\(\s*\)")
_STATE_RE = re.compile(r"(?<![\w])((?:::\s*)?)benchmark(\s*::\s*State)(?![\w])")
_STATE_IN_PARAM_RE = re.compile(r"^\s*(?:const\s+)?(?:::\s*)?benchmark\s*::\s*State\b")
_FIXTURE_RE = re.compile(r"(?<![\w])((?:::\s*)?)benchmark(\s*::\s*Fixture)(?![\w])")
_RANGE_XY_RE = re.compile(r"(\.|->)(\s*)range_([xy])(\s*)\(\s*\)")
_CLASS_RE = re.compile(
    r"(?<![\w])(?:class|struct)\s+(\w+)\s*(?:final\s*)?:([^{;()]*)\{")
_REGISTER_BENCHMARK_RE = re.compile(
    r"(?<![\w])(?:(?:::\s*)?benchmark\s*::\s*)?RegisterBenchmark\s*\(")
_GB_MAIN_CALL_RE = re.compile(
    r"(?<![\w])(?:::\s*)?benchmark\s*::\s*(Initialize|RunSpecifiedBenchmarks)\s*\(")
_ACCESS_RE = re.compile(r"^\s*(?:(?:public|protected|private|virtual)\s+)+")
_SETUP_BUILDER_RE = re.compile(r"->\s*(Setup|Teardown)\s*\(\s*&?\s*([\w:]+)")


_DEFINE_RE = re.compile(r"#\s*define\s+(\w+)\(([^)]*)\)")


def _enclosing_define(code: str, pos: int) -> tuple[str, list[str]] | None:
    """(name, parameters) of the function-like #define whose body holds pos."""
    start = pos
    while True:
        nl = code.rfind("\n", 0, start)
        # A line that ends in a backslash continues onto the next.
        if nl > 0 and code[:nl].rstrip(" \t\r").endswith("\\"):
            start = nl
            continue
        break
    line_start = nl + 1
    m = _DEFINE_RE.match(code, line_start + (len(code[line_start:]) - len(code[line_start:].lstrip(" \t"))))
    if not m or m.end() > pos:
        return None
    return m.group(1), [p.strip() for p in m.group(2).split(",")]


def _last_name(expr: str) -> str | None:
    """BM_X for `BM_X`, `ns::BM_X`, `BM_X<int, 8>`, `&BM_X`."""
    m = re.match(r"\s*&?\s*((?:::)?\s*\w+(?:\s*::\s*\w+)*)", expr)
    if not m:
        return None
    return re.split(r"\s*::\s*", m.group(1).strip())[-1] or None


class _Edits:
    def __init__(self, text: str):
        self.text = text
        self.edits: dict[int, tuple[int, str, str]] = {}

    def add(self, start: int, end: int, new: str, kind: str) -> None:
        if start in self.edits:
            return
        self.edits[start] = (end, new, kind)

    def apply(self) -> tuple[str, list[Change]]:
        out = []
        changes = []
        pos = 0
        for start in sorted(self.edits):
            end, new, kind = self.edits[start]
            if start < pos:  # overlaps an earlier edit: cannot happen, but never corrupt
                continue
            out.append(self.text[pos:start])
            out.append(new)
            pos = end
            changes.append(Change(kind, line_of(self.text, start)))
        out.append(self.text[pos:])
        return "".join(out), changes


def _rewrite_states(text: str, code: str, start: int, end: int,
                    edits: _Edits) -> int:
    """Adds an edit for every benchmark::State in code[start:end]."""
    count = 0
    for m in _STATE_RE.finditer(code, start, end):
        # `benchmark` -> `pmubench`, whatever spacing or leading :: it has.
        b = m.start() + len(m.group(1))
        edits.add(b, b + len("benchmark"), "pmubench", KIND_STATE)
        count += 1
    return count


def _params_after(code: str, pos: int) -> tuple[int, int] | None:
    """The parenthesized list that follows pos (spaces and comments
    between), as (open, close), or None."""
    k = pos
    while k < len(code) and code[k].isspace():
        k += 1
    if k < len(code) and code[k] == "(":
        close = matching_paren(code, k)
        if close > 0:
            return k, close
    return None


def convert_source(text: str) -> Result:
    """Converts one Google Benchmark source file's text. Raises
    NotGoogleBenchmark when it is none."""
    code = code_mask(text)
    includes, macros, mains = _google_benchmark_uses(text, code)
    # Where two edits start at one offset the first one added is kept
    # (_Edits.add): the steps below add theirs in this order.
    edits = _Edits(text)
    for m in includes:
        edits.add(m.start() + len(m.group(1)), m.end(), PMUBENCH_INCLUDE, KIND_INCLUDE)
    registered, notes = _register_macros(text, code, macros, edits)
    notes += _register_wrapper_uses(text, code, registered, edits)
    for m in mains:
        edits.add(m.start(), m.end(), "PMUBENCH_MAIN()", KIND_MAIN)
    gb_functions, gb_notes = _google_benchmark_functions(text, code)
    notes += gb_notes
    kept_because = _why_state_is_kept(text, code, gb_functions)
    notes += _rewrite_case_functions(text, code, registered.case_functions,
                                     gb_functions, edits)
    notes += _rewrite_fixtures(text, code, registered.fixture_classes, edits)
    for m in _RANGE_XY_RE.finditer(code):
        index = "0" if m.group(3) == "x" else "1"
        edits.add(m.start(), m.end(), f"{m.group(1)}{m.group(2)}range({index})",
                  KIND_RANGE_XY)
    new_text, changes = edits.apply()
    notes += _kept_state_notes(new_text, kept_because)
    notes.sort(key=lambda n: (n.line, n.message))
    return Result(text=new_text, changes=changes, notes=_dedupe(notes), recognized=True)


def _google_benchmark_uses(text: str, code: str
                           ) -> tuple[list[re.Match], list[re.Match], list[re.Match]]:
    """The includes of benchmark/benchmark.h, the registration macros and the
    BENCHMARK_MAIN()s. Raises NotGoogleBenchmark when there are none and the
    file is no pmubench file either."""
    # Only includes that are code (not inside a block comment): the '#'
    # survives the mask.
    includes = [m for m in _INCLUDE_RE.finditer(text)
                if "#" in code[m.start():m.start() + len(m.group(1))]]
    macros = list(_MACRO_RE.finditer(code))
    mains = list(_MAIN_RE.finditer(code))
    already = bool(_PMUBENCH_INCLUDE_RE.search(text)) or bool(_PMU_MACRO_RE.search(code))
    if not includes and not macros and not mains and not already:
        raise NotGoogleBenchmark(
            "not a Google Benchmark file: no #include of benchmark/benchmark.h "
            "and no BENCHMARK macro")
    return includes, macros, mains


@dataclass
class _Registered:
    """What the registration macros register, each name with the line that
    registers it first."""
    case_functions: dict[str, int] = field(default_factory=dict)
    fixture_classes: dict[str, int] = field(default_factory=dict)
    # The file's own macros that wrap a registration macro: (macro, which of
    # its parameters is the case, the macro it wraps, line of its #define).
    wrappers: list[tuple[str, int, str, int]] = field(default_factory=list)


def _register_macros(text: str, code: str, macros: list[re.Match],
                     edits: _Edits) -> tuple[_Registered, list[Note]]:
    """Adds PMU_ before each registration macro and collects the names of
    the cases they register; an _F macro's case body takes pmubench::State.
    The notes: macros left as they were."""
    registered = _Registered()
    notes: list[Note] = []
    for m in macros:
        name = m.group(1)
        edits.add(m.start(1), m.start(1), "PMU_", macro_kind(name))
        open_at = m.end() - 1
        close_at = matching_paren(code, open_at)
        if close_at < 0:
            notes.append(Note(line_of(text, m.start()),
                              f"{name}( has no closing parenthesis: left as it was",
                              blocking=True))
            continue
        args = split_args(code, open_at, close_at)
        first = text[args[0][0]:args[0][1]]
        target = _last_name(first)
        # Inside `#define MY_BENCH(fn) BENCHMARK(fn)->...`: the cases are
        # what MY_BENCH is given, wherever it is used.
        define = _enclosing_define(code, m.start())
        if define and target in define[1]:
            registered.wrappers.append((define[0], define[1].index(target), name,
                                        line_of(text, m.start())))
            continue
        if name in CASE_MACROS:
            if target:
                registered.case_functions.setdefault(target, line_of(text, m.start()))
        else:
            if target:
                registered.fixture_classes.setdefault(target, line_of(text, m.start()))
            if name in FIXTURE_BODY_MACROS:
                _rewrite_body_params(text, code, close_at, edits)
    return registered, notes


def _rewrite_body_params(text: str, code: str, close_at: int, edits: _Edits) -> None:
    """benchmark::State -> pmubench::State in the parameter list of the case
    body that follows an _F macro whose ')' is at close_at."""
    params = _params_after(code, close_at + 1)
    if params and _STATE_IN_PARAM_RE.match(code[params[0] + 1:params[1]]):
        _rewrite_states(text, code, params[0], params[1] + 1, edits)


def _register_wrapper_uses(text: str, code: str, registered: _Registered,
                           edits: _Edits) -> list[Note]:
    """Adds to registered the cases given to each use of the file's own
    macros that wrap a registration macro. The notes: such macros this file
    never uses."""
    notes = []
    for macro, index, wrapped, define_line in registered.wrappers:
        registry = (registered.case_functions if wrapped in CASE_MACROS
                    else registered.fixture_classes)
        if not _register_uses_of(text, code, macro, index, wrapped, registry, edits):
            notes.append(Note(define_line, f"the macro {macro} registers cases, but "
                                           "this file never uses it: the cases it "
                                           "registers elsewhere must take pmubench::State"))
    return notes


def _register_uses_of(text: str, code: str, macro: str, index: int, wrapped: str,
                      registry: dict[str, int], edits: _Edits) -> bool:
    """Adds to registry the case each use of macro gives as its argument
    `index` (macro wraps the registration macro `wrapped`). True when a use
    gave one."""
    used = False
    for u in re.finditer(r"(?<![\w#])" + re.escape(macro) + r"\s*\(", code):
        if (_enclosing_define(code, u.start())
                or re.search(r"#\s*define\s+$", code[max(0, u.start() - 80):u.start()])):
            continue  # inside a #define, or the #define's own name
        close_at = matching_paren(code, u.end() - 1)
        if close_at < 0:
            continue
        args = split_args(code, u.end() - 1, close_at)
        if index < len(args):
            target = _last_name(text[args[index][0]:args[index][1]])
            if target:
                used = True
                registry.setdefault(target, line_of(text, u.start()))
        if wrapped in FIXTURE_BODY_MACROS:
            _rewrite_body_params(text, code, close_at, edits)
    return used


def _google_benchmark_functions(text: str, code: str
                                ) -> tuple[dict[str, str], list[Note]]:
    """The functions passed to benchmark::RegisterBenchmark or to
    ->Setup/Teardown, each with why: they get Google Benchmark's State, so
    they keep benchmark::State. The notes: what pmubench cannot take
    (RegisterBenchmark, a main() of the file's own)."""
    gb_functions: dict[str, str] = {}
    notes = []
    for m in _REGISTER_BENCHMARK_RE.finditer(code):
        open_at = m.end() - 1
        close_at = matching_paren(code, open_at)
        line = line_of(text, m.start())
        notes.append(Note(
            line,
            "benchmark::RegisterBenchmark: pmubench registers cases only through "
            "the PMU_BENCHMARK macros, so this case stays a Google Benchmark case "
            "(time only, no counters); register it with a PMU_BENCHMARK macro to count it",
            blocking=True))
        if close_at > 0:
            args = split_args(code, open_at, close_at)
            if len(args) >= 2:
                fn = _last_name(text[args[1][0]:args[1][1]])
                if fn:
                    gb_functions.setdefault(fn, "passed to benchmark::RegisterBenchmark")
    for m in _SETUP_BUILDER_RE.finditer(code):
        fn = _last_name(m.group(2))
        if fn:
            gb_functions.setdefault(fn, f"a ->{m.group(1)}() function, which Google "
                                        "Benchmark calls with its own State")
    for m in _GB_MAIN_CALL_RE.finditer(code):
        notes.append(Note(
            line_of(text, m.start(1)),
            f"benchmark::{m.group(1)}: a main() of the file's own runs Google "
            "Benchmark without pmubench's counters; call pmubench::RunMain(argc, argv) "
            "(framework/runner/run/run_main.h) instead, or use PMUBENCH_MAIN()",
            blocking=True))
    return gb_functions, notes


def _why_state_is_kept(text: str, code: str, gb_functions: dict[str, str]
                       ) -> dict[int, str]:
    """Why the functions that keep Google Benchmark's State keep it, by the
    line of their definition."""
    kept_because: dict[int, str] = {}
    for fn, why in gb_functions.items():
        for d in re.finditer(r"(?<![\w])" + re.escape(fn) + r"\s*\(", code):
            close_at = matching_paren(code, d.end() - 1)
            if close_at > 0 and _STATE_IN_PARAM_RE.match(code[d.end():close_at]):
                kept_because[line_of(text, d.start())] = f"benchmark::State kept in {fn}: {why}"
    return kept_because


def _rewrite_case_functions(text: str, code: str, case_functions: dict[str, int],
                            gb_functions: dict[str, str], edits: _Edits) -> list[Note]:
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
        for d in re.finditer(r"(?<![\w])" + re.escape(fn) + r"\s*(?:<[^;{}()]*>\s*)?\(", code):
            open_at = d.end() - 1
            close_at = matching_paren(code, open_at)
            if close_at < 0:
                continue
            if _STATE_IN_PARAM_RE.match(code[open_at + 1:close_at]):
                first_arg = split_args(code, open_at, close_at)[0]
                _rewrite_states(text, code, first_arg[0], first_arg[1], edits)
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
    for m in _CLASS_RE.finditer(code):
        body_open = m.end() - 1
        body_close = matching_brace(code, body_open)
        classes.append((m.group(1), m.group(2), body_open, body_close))
    grew = True
    while grew:
        grew = False
        for cname, bases, *_ in classes:
            if cname in derived:
                continue
            if (re.search(r"(?<![\w])(?:benchmark|pmubench)\s*::\s*Fixture(?![\w])", bases)
                    or any(_last_name(_ACCESS_RE.sub("", b)) in derived
                           for b in bases.split(","))):
                derived.add(cname)
                grew = True
    return derived, classes


def _rewrite_fixtures(text: str, code: str, fixture_classes: dict[str, int],
                      edits: _Edits) -> list[Note]:
    """benchmark::Fixture -> pmubench::Fixture, and benchmark::State ->
    pmubench::State in every member of a class derived (here) from
    benchmark::Fixture or from such a class. The notes: fixtures a macro
    uses that are not defined here."""
    derived, classes = _fixture_classes_here(code)
    for cname, _bases, body_open, body_close in classes:
        if cname not in derived or body_close < 0:
            continue
        _rewrite_states(text, code, body_open, body_close, edits)
    # Members defined outside their class: void Table::SetUp(const benchmark::State&)
    for cname in derived:
        for d in re.finditer(r"(?<![\w])" + re.escape(cname)
                             + r"\s*(?:<[^;{}()]*>\s*)?::\s*~?\w+\s*\(", code):
            open_at = d.end() - 1
            close_at = matching_paren(code, open_at)
            if close_at > 0:
                _rewrite_states(text, code, open_at, close_at, edits)
    for m in _FIXTURE_RE.finditer(code):
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
    for m in _STATE_RE.finditer(new_code):
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


# --------------------------------------------------------------------------
# Describing what was done.


def _line_list(lines: list[int]) -> str:
    lines = sorted(set(lines))
    word = "line" if len(lines) == 1 else "lines"
    return f"{word} " + ", ".join(str(n) for n in lines)


def summarize(name: str, result: Result) -> list[str]:
    """The lines the command prints for one file: a line per kind of change
    with its line numbers, then the notes."""
    out = []
    if not result.changes:
        out.append(f"{name}: nothing to change (already pmubench)")
    else:
        out.append(f"{name}: {len(result.changes)} change"
                   f"{'' if len(result.changes) == 1 else 's'}")
        by_kind: dict[str, list[int]] = {}
        for c in result.changes:
            by_kind.setdefault(c.kind, []).append(c.line)
        for kind in KIND_ORDER:
            if kind in by_kind:
                label = kind
                if kind == KIND_INCLUDE:
                    label = f"#include benchmark/benchmark.h -> {PMUBENCH_INCLUDE}"
                out.append(f"  {label}: {len(by_kind[kind])} at {_line_list(by_kind[kind])}")
    blocking = [n for n in result.notes if n.blocking]
    other = [n for n in result.notes if not n.blocking]
    if blocking:
        out.append(f"  NOT CONVERTED ({len(blocking)}): finish by hand")
        out.extend(f"    line {n.line}: {n.message}" for n in blocking)
    if other:
        out.append(f"  left as it was ({len(other)}):")
        out.extend(f"    line {n.line}: {n.message}" for n in other)
    return out
