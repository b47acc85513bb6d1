"""Merges several runs of one suite into one file of repetitions.

scripts/ci_compare.sh --rounds K runs the base and the change alternately,
K times each, so that a change in the machine's load during the job hits
both sides alike instead of only the side that ran second; this joins each
side's rounds (front: scripts/merge.py). Every input is read by
pmubench.runs.benchjson, the reader compare.py and plot.py use, so merge.py
accepts and refuses the same files they do. Every per-repetition run of
every input is kept, in input order, renumbered (repetition_index 0..N-1,
repetitions N per benchmark and registration: two registrations that give
one name, told apart by family_index and per_family_instance_index, are
numbered apart); aggregates are dropped (compare.py computes its own
statistics from the repetitions); the context is the first input's, plus
"pmubench_merged_files".

The output is strict JSON: numbers no tool reads that are not finite (a
failed run's NaN times, a context value) are written as null.
"""

from __future__ import annotations

import math
from typing import Any

from pmubench.runs import benchjson


def _finite(value: Any) -> Any:
    """value with every NaN or infinite float replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def merge_files(benches: list[benchjson.BenchFile]) -> dict:
    """Merges loaded files (benchjson.load); raises benchjson.BadInput."""
    runs: list[tuple[tuple, dict]] = []
    for bench in benches:
        iterations = [r for r in bench.runs if r.run_type == "iteration"]
        if not iterations:
            raise benchjson.BadInput(
                f"{bench.path}: holds only aggregates; merging needs the "
                "per-repetition runs (drop --benchmark_report_aggregates_only)")
        for run in iterations:
            obj = _finite(dict(run.raw)) if run.raw is not None else {}
            obj["run_name"] = run.run_name
            obj.setdefault("name", run.name)
            runs.append(((run.run_name, run.registration), obj))
    counts: dict[tuple, int] = {}
    for key, obj in runs:
        obj["repetition_index"] = counts.get(key, 0)
        counts[key] = obj["repetition_index"] + 1
    for key, obj in runs:
        obj["repetitions"] = counts[key]
    context = _finite(dict(benches[0].context))
    context["pmubench_merged_files"] = str(len(benches))
    return {"context": context, "benchmarks": [obj for _, obj in runs]}


def merge(docs: list[tuple[str, Any]]) -> dict:
    """Merges parsed JSON [(path, object)]; raises benchjson.BadInput."""
    return merge_files([benchjson.parse(doc, path) for path, doc in docs])
