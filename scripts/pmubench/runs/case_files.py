"""Which source file registered each pmubench case: the context's
pmubench_case_files, as the runner writes it ("BM_A=branch_prediction;
BM_B=ilp": every PMU case's family; "none" when no case is a PMU case).
A family it does not list is a plain Google Benchmark case (BENCHMARK,
not PMU_BENCHMARK)."""

from __future__ import annotations

from typing import Any

CASE_FILES_KEY = "pmubench_case_files"


def case_files(context: dict[str, Any]) -> dict[str, str]:
    """Family -> source file stem; {} for a file without the key (older
    runs) and for "none"."""
    value = context.get(CASE_FILES_KEY)
    result: dict[str, str] = {}
    if not isinstance(value, str):
        return result
    for pair in value.split(";"):
        family, sep, source = pair.partition("=")
        if sep and family.strip() and source.strip():
            result.setdefault(family.strip(), source.strip())
    return result


def pmubench_families(context: dict[str, Any]) -> set[str] | None:
    """The families of pmubench's own cases; None where the context does
    not say (no key, or not a string of them), so no case can be told to
    be plain."""
    value = context.get(CASE_FILES_KEY)
    if not isinstance(value, str) or not value:
        return None
    return set(case_files(context))
