"""The regular expressions convert looks for code with, run over the masked
code (lexing.code_mask) unless they say otherwise.
"""

from __future__ import annotations

import re

from pmubench.convert.model import ALL_MACROS


INCLUDE_RE = re.compile(
    r'^([ \t]*#[ \t]*include[ \t]*)([<"])benchmark/benchmark\.h([>"])', re.M)


PMUBENCH_INCLUDE_RE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:[\w./-]*/)?(?:framework/)?pmubench\.h[>"]', re.M)


MACRO_RE = re.compile(
    r"(?<![\w])(" + "|".join(sorted(ALL_MACROS, key=len, reverse=True)) + r")\s*\(")


PMU_MACRO_RE = re.compile(r"(?<![\w])PMU_BENCHMARK\w*\s*\(|(?<![\w])PMUBENCH_MAIN\s*\(")


MAIN_RE = re.compile(r"(?<![\w])BENCHMARK_MAIN\s*\(\s*\)")


STATE_RE = re.compile(r"(?<![\w])((?:::\s*)?)benchmark(\s*::\s*State)(?![\w])")


STATE_IN_PARAM_RE = re.compile(r"^\s*(?:const\s+)?(?:::\s*)?benchmark\s*::\s*State\b")


FIXTURE_RE = re.compile(r"(?<![\w])((?:::\s*)?)benchmark(\s*::\s*Fixture)(?![\w])")


RANGE_XY_RE = re.compile(r"(\.|->)(\s*)range_([xy])(\s*)\(\s*\)")


CLASS_RE = re.compile(
    r"(?<![\w])(?:class|struct)\s+(\w+)\s*(?:final\s*)?:([^{;()]*)\{")


REGISTER_BENCHMARK_RE = re.compile(
    r"(?<![\w])(?:(?:::\s*)?benchmark\s*::\s*)?RegisterBenchmark\s*\(")


GB_MAIN_CALL_RE = re.compile(
    r"(?<![\w])(?:::\s*)?benchmark\s*::\s*(Initialize|RunSpecifiedBenchmarks)\s*\(")


ACCESS_RE = re.compile(r"^\s*(?:(?:public|protected|private|virtual)\s+)+")


SETUP_BUILDER_RE = re.compile(r"->\s*(Setup|Teardown)\s*\(\s*&?\s*([\w:]+)")
