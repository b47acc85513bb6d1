"""Step 2, what the file registers: the includes, registration macros and
BENCHMARK_MAIN()s; the case functions and fixture classes the macros (and
the file's own macros that wrap them) register; the functions that get
Google Benchmark's State (RegisterBenchmark, ->Setup/Teardown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pmubench.convert.model import (
    CASE_MACROS, FIXTURE_BODY_MACROS, NotGoogleBenchmark, Note, macro_kind)
from pmubench.convert.patterns import (
    GB_MAIN_CALL_RE, INCLUDE_RE, MACRO_RE, MAIN_RE, PMUBENCH_INCLUDE_RE, PMU_MACRO_RE,
    REGISTER_BENCHMARK_RE, SETUP_BUILDER_RE, STATE_IN_PARAM_RE)
from pmubench.convert.lexing import (
    NameIndex, enclosing_define, last_name, line_of, matching_paren, params_after, split_args)
from pmubench.convert.edits import Edits, rewrite_states


def google_benchmark_uses(text: str, code: str
                           ) -> tuple[list[re.Match], list[re.Match], list[re.Match]]:
    """The includes of benchmark/benchmark.h, the registration macros and the
    BENCHMARK_MAIN()s. Raises NotGoogleBenchmark when there are none and the
    file is no pmubench file either."""
    # Only includes that are code (not inside a block comment): the '#'
    # survives the mask.
    includes = [m for m in INCLUDE_RE.finditer(text)
                if "#" in code[m.start():m.start() + len(m.group(1))]]
    macros = list(MACRO_RE.finditer(code))
    mains = list(MAIN_RE.finditer(code))
    already = bool(PMUBENCH_INCLUDE_RE.search(text)) or bool(PMU_MACRO_RE.search(code))
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


def register_macros(text: str, code: str, macros: list[re.Match],
                     edits: Edits) -> tuple[_Registered, list[Note]]:
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
        target = last_name(first)
        # Inside `#define MY_BENCH(fn) BENCHMARK(fn)->...`: the cases are
        # what MY_BENCH is given, wherever it is used.
        define = enclosing_define(code, m.start())
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


def _rewrite_body_params(text: str, code: str, close_at: int, edits: Edits) -> None:
    """benchmark::State -> pmubench::State in the parameter list of the case
    body that follows an _F macro whose ')' is at close_at."""
    params = params_after(code, close_at + 1)
    if params and STATE_IN_PARAM_RE.match(code[params[0] + 1:params[1]]):
        rewrite_states(text, code, params[0], params[1] + 1, edits)


def register_wrapper_uses(text: str, code: str, registered: _Registered,
                           edits: Edits) -> list[Note]:
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
                      registry: dict[str, int], edits: Edits) -> bool:
    """Adds to registry the case each use of macro gives as its argument
    `index` (macro wraps the registration macro `wrapped`). True when a use
    gave one."""
    used = False
    for u in re.finditer(r"(?<![\w#])" + re.escape(macro) + r"\s*\(", code):
        if (enclosing_define(code, u.start())
                or re.search(r"#\s*define\s+$", code[max(0, u.start() - 80):u.start()])):
            continue  # inside a #define, or the #define's own name
        close_at = matching_paren(code, u.end() - 1)
        if close_at < 0:
            continue
        args = split_args(code, u.end() - 1, close_at)
        if index < len(args):
            target = last_name(text[args[index][0]:args[index][1]])
            if target:
                used = True
                registry.setdefault(target, line_of(text, u.start()))
        if wrapped in FIXTURE_BODY_MACROS:
            _rewrite_body_params(text, code, close_at, edits)
    return used


def google_benchmark_functions(text: str, code: str
                                ) -> tuple[dict[str, str], list[Note]]:
    """The functions passed to benchmark::RegisterBenchmark or to
    ->Setup/Teardown, each with why: they get Google Benchmark's State, so
    they keep benchmark::State. The notes: what pmubench cannot take
    (RegisterBenchmark, a main() of the file's own)."""
    gb_functions: dict[str, str] = {}
    notes = []
    for m in REGISTER_BENCHMARK_RE.finditer(code):
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
                fn = last_name(text[args[1][0]:args[1][1]])
                if fn:
                    gb_functions.setdefault(fn, "passed to benchmark::RegisterBenchmark")
    for m in SETUP_BUILDER_RE.finditer(code):
        fn = last_name(m.group(2))
        if fn:
            gb_functions.setdefault(fn, f"a ->{m.group(1)}() function, which Google "
                                        "Benchmark calls with its own State")
    for m in GB_MAIN_CALL_RE.finditer(code):
        notes.append(Note(
            line_of(text, m.start(1)),
            f"benchmark::{m.group(1)}: a main() of the file's own runs Google "
            "Benchmark without pmubench's counters; call pmubench::RunMain(argc, argv) "
            "(framework/runner/run/run_main.h) instead, or use PMUBENCH_MAIN()",
            blocking=True))
    return gb_functions, notes


def why_state_is_kept(text: str, code: str, gb_functions: dict[str, str],
                      calls: NameIndex) -> dict[int, str]:
    """Why the functions that keep Google Benchmark's State keep it, by the
    line of their definition (calls: lexing.NameIndex(code, CALL_TAIL))."""
    kept_because: dict[int, str] = {}
    for fn, why in gb_functions.items():
        for start, end in calls.of(fn, plain=True):
            close_at = matching_paren(code, end - 1)
            if close_at > 0 and STATE_IN_PARAM_RE.match(code[end:close_at]):
                kept_because[line_of(text, start)] = f"benchmark::State kept in {fn}: {why}"
    return kept_because
