"""Merges several runs of one suite into one file of repetitions.

scripts/ci_compare.sh --rounds K runs the base and the change alternately,
K times each, so that a change in the machine's load during the job hits
both sides alike instead of only the side that ran second; this joins each
side's rounds (front: scripts/merge.py). Every per-repetition run of every
input is kept, in input order, renumbered (repetition_index 0..N-1,
repetitions N per benchmark); aggregates are dropped (compare.py computes its
own statistics from the repetitions); the context is the first input's, plus
"pmubench_merged_files".
"""

from __future__ import annotations

from pmubench import benchjson


def merge(docs: list[tuple[str, dict]]) -> dict:
    """Merges parsed files [(path, json object)]; raises benchjson.BadInput."""
    runs: list[dict] = []
    for path, doc in docs:
        benchjson.parse(doc, path)   # validates; the raw objects are kept
        iterations = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
        if not iterations:
            raise benchjson.BadInput(
                f"{path}: holds only aggregates; merging needs the "
                "per-repetition runs (drop --benchmark_report_aggregates_only)")
        runs += [dict(b) for b in iterations]
    counts: dict[str, int] = {}
    for run in runs:
        run["repetition_index"] = counts.get(run["run_name"], 0)
        counts[run["run_name"]] = run["repetition_index"] + 1
    for run in runs:
        run["repetitions"] = counts[run["run_name"]]
    context = dict(docs[0][1].get("context", {}))
    context["pmubench_merged_files"] = str(len(docs))
    return {"context": context, "benchmarks": runs}
