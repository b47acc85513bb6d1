"""Merges several runs of one suite into one file of repetitions.

    python3 scripts/pmucompare/merge.py OUT.json IN.json [IN.json ...]

scripts/ci_compare.sh --rounds K runs the base and the change alternately,
K times each, so that a change in the machine's load during the job hits
both sides alike instead of only the side that ran second; this joins each
side's rounds. Every per-repetition run of every input is kept, in input
order, renumbered (repetition_index 0..N-1, repetitions N per benchmark);
aggregates are dropped (compare.py computes its own statistics from the
repetitions); the context is the first input's, plus
"pmubench_merged_files". Exit status 2 on bad input, naming the file.
"""

from __future__ import annotations

import json
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import benchjson  # noqa: E402
from pmucompare import output  # noqa: E402


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


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: merge.py OUT.json IN.json [IN.json ...]", file=sys.stderr)
        return 2
    out, inputs = argv[0], argv[1:]
    try:
        docs = []
        for path in inputs:
            try:
                with open(path, encoding="utf-8") as f:
                    docs.append((path, json.load(f)))
            except FileNotFoundError:
                raise benchjson.BadInput(f"{path}: no such file") from None
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
                raise benchjson.BadInput(f"{path}: cannot read as JSON: {e}") from None
        merged = merge(docs)
    except benchjson.BadInput as e:
        print(f"merge.py: error: {e}", file=sys.stderr)
        return 2
    output.write_atomically(out, json.dumps(merged, indent=2, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
