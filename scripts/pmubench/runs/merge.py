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

join_shards joins instead the files of the N shards of one run
(--pmubench_shard=I/N, front: scripts/merge.py --shards): each case is in
one shard, so no run is renumbered; the runs are put back in the unsharded
run's order, which each shard's context lists.

The output is strict JSON: numbers no tool reads that are not finite (a
failed run's NaN times, a context value) are written as null.
"""

from __future__ import annotations

import json
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


def merge_rounds(docs: list[tuple[str, Any]]) -> dict:
    """merge, but the rounds of a shard that selected no case (each an
    empty run, --pmubench_shard) give that empty run, as one round would."""
    if all(isinstance(doc, dict) and doc.get("benchmarks") == []
           and SHARD_KEY in doc.get("context", {}) for _, doc in docs):
        return docs[0][1]
    return merge(docs)


def merge(docs: list[tuple[str, Any]]) -> dict:
    """Merges parsed JSON [(path, object)]; raises benchjson.BadInput."""
    return merge_files([benchjson.parse(doc, path) for path, doc in docs])


# Context keys a shard's run carries (the runner's --pmubench_shard=I/N).
SHARD_KEY = "pmubench_shard"
SHARD_CASES_KEY = "pmubench_shard_cases"


def _shard_of(path: str, doc: Any) -> tuple[int, int, list[str]]:
    """(I, N, the suite's instances in registration order) of one shard's
    run; raises benchjson.BadInput naming the file."""
    context = doc.get("context") if isinstance(doc, dict) else None
    shard = context.get(SHARD_KEY) if isinstance(context, dict) else None
    cases = context.get(SHARD_CASES_KEY) if isinstance(context, dict) else None
    try:
        index, count = (int(part) for part in str(shard).split("/"))
        cases = json.loads(cases)
    except (ValueError, TypeError):
        index = count = 0
    if not isinstance(cases, list) or not 1 <= index <= count:
        raise benchjson.BadInput(
            f"{path}: not one shard's run (its context has no {SHARD_KEY} "
            f"I/N and {SHARD_CASES_KEY}); write each shard with "
            "--pmubench_shard=I/N --benchmark_out=FILE --benchmark_out_format=json")
    return index, count, [str(name) for name in cases]


def _check_shards(shards: list[tuple[str, int, int, list[str]]]) -> None:
    """The files are shards 1..N of one suite, each once."""
    first_path, _, count, cases = shards[0]
    for path, _, n, c in shards[1:]:
        if n != count or c != cases:
            raise benchjson.BadInput(
                f"{path}: a shard of another run than {first_path} (another "
                "shard count or suite); join the N shards of one run")
    given = sorted(index for _, index, _, _ in shards)
    if given != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(given))
        repeated = sorted({i for i in given if given.count(i) > 1})
        raise benchjson.BadInput(
            f"shards of {count}: missing {missing or 'none'}, given twice "
            f"{repeated or 'none'}; give each shard's file once")


def join_shards(docs: list[tuple[str, Any]]) -> dict:
    """One run from the files of shards 1..N of one run (parsed JSON,
    [(path, object)]): every run of every shard, ordered as the unsharded
    run orders them (the suite's registration order, kept in each shard's
    context); the context is the first shard's without the shard keys.
    Raises benchjson.BadInput naming the file."""
    shards = [(path, *_shard_of(path, doc)) for path, doc in docs]
    _check_shards(shards)
    position = {name: i for i, name in reversed(list(enumerate(shards[0][3])))}
    owner: dict[str, str] = {}
    runs: list[tuple[int, dict]] = []
    for path, doc in docs:
        if doc.get("benchmarks"):
            benchjson.parse(doc, path)  # the checks compare.py makes
        for obj in doc.get("benchmarks", []):
            name = obj.get("run_name", obj.get("name"))
            if name not in position:
                raise benchjson.BadInput(
                    f"{path}: {name} is not among the suite's cases its "
                    "context lists; was the file edited?")
            if owner.setdefault(name, path) != path:
                raise benchjson.BadInput(
                    f"{path}: {name} was also run by {owner[name]}; shards "
                    "of one run never share a case")
            runs.append((position[name], _finite(obj)))
    runs.sort(key=lambda item: item[0])  # stable: a case's rows keep their order
    # A shard with runs holds the run's whole context (backend, events).
    source = next((doc for _, doc in docs if doc.get("benchmarks")), docs[0][1])
    context = _finite(dict(source["context"]))
    for key in (SHARD_KEY, SHARD_CASES_KEY):
        context.pop(key, None)
    context["pmubench_joined_shards"] = str(len(docs))
    return {"context": context, "benchmarks": [obj for _, obj in runs]}
