"""Rewriting a Google Benchmark source file to pmubench (scripts/convert).

    result = convert_source(text)
    result.text       # the converted file
    result.changes    # what was rewritten: Change(kind, line)
    result.notes      # what was left, and why: Note(line, message, blocking)

Pure functions over the file's text, in steps: lexing (what is code),
registrations (what the file registers), rewrite (convert_source), summary
(what the command prints); files reads the sources and writes the results.
The command line is scripts/convert.

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

from pmubench.convert.model import (  # noqa: F401
    ALL_MACROS, CASE_MACROS, FIXTURE_BODY_MACROS, FIXTURE_MACROS, KIND_FIXTURE,
    KIND_INCLUDE, KIND_MAIN, KIND_ORDER, KIND_RANGE_XY, KIND_STATE, PMUBENCH_INCLUDE,
    Change, Note, NotGoogleBenchmark, Result, macro_kind)
from pmubench.convert.lexing import code_mask  # noqa: F401
from pmubench.convert.rewrite import convert_source  # noqa: F401
from pmubench.convert.summary import summarize  # noqa: F401
