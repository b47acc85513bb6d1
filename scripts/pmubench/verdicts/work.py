"""Whether the work of a case changed between the two files: its label
(Google Benchmark's SetLabel, e.g. a compression ratio "74.00%" ->
"73.00%") or the items or bytes it processed per iteration
(SetItemsProcessed, SetBytesProcessed). When it did, the counts may differ
because the input did, not the code; every format says so on the rows of
that benchmark (JSON "work_changed") and in a note.

Google Benchmark writes no items per iteration, only the rate
items_per_second = items processed / seconds, where the seconds are the
batch's CPU time (real time for ->UseRealTime(), manual time for
->UseManualTime(): the name then ends in /real_time or /manual_time, and
the file's real_time holds that time). So rate x that time per iteration is
the items per iteration, exact to a double's rounding (base.json's
BM_BranchSorted: 1504392880.1047204/s x 0.66471997655984 ns = 1.0000000).
Two values within a relative 1e-6 are the same. Only iteration runs are
used for the rates (the median aggregate of a rate is not the rate of the
median time); a side of aggregates only is compared by its label alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pmubench.runs import benchjson, matching

# Two per-iteration amounts closer than this (relative) are the same.
_SAME = 1e-6
_SHOWN_LABEL = 40    # characters of a label a row shows


@dataclass(frozen=True)
class WorkChange:
    """What differs, each as (baseline, contender); None where the same."""
    label: tuple[str, str] | None = None
    items_per_iteration: tuple[float, float] | None = None
    bytes_per_iteration: tuple[float, float] | None = None

    def describe(self) -> str:
        """'label "74.00%" -> "73.00%", items per iteration 1000 -> 2000'."""
        parts = []
        if self.label:
            b, c = (json.dumps(x[:_SHOWN_LABEL] + ("..." if len(x) > _SHOWN_LABEL else ""))
                    for x in self.label)
            parts.append(f"label {b} -> {c}")
        for name, pair in (("items", self.items_per_iteration),
                           ("bytes", self.bytes_per_iteration)):
            if pair:
                parts.append(f"{name} per iteration {pair[0]:.6g} -> {pair[1]:.6g}")
        return ", ".join(parts)

    def to_json(self) -> dict:
        """Only what differs: {"label": {"baseline", "contender"}, ...}."""
        out = {}
        for key in ("label", "items_per_iteration", "bytes_per_iteration"):
            pair = getattr(self, key)
            if pair:
                out[key] = {"baseline": pair[0], "contender": pair[1]}
        return out


def _time_metric(run: benchjson.Run) -> str:
    parts = run.run_name.split("/")
    return "real_time" if ("real_time" in parts or "manual_time" in parts) else "cpu_time"


def per_iteration(runs: list[benchjson.Run], rate: str) -> float | None:
    """The median over runs of rate x time per iteration (in seconds), or
    None when no run has the rate."""
    values = sorted(
        run.metrics[rate] * run.metrics[_time_metric(run)]
        * benchjson.TIME_UNITS_NS.get(run.time_unit, 1.0) * 1e-9
        for run in runs if rate in run.metrics and _time_metric(run) in run.metrics)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _label(runs: matching.BenchmarkRuns) -> str:
    source = runs.iterations or [r for r in runs.aggregates.values()
                                 if r.aggregate_name in ("median", "mean")]
    return " / ".join(dict.fromkeys(r.label for r in source))


def _differs(b: float | None, c: float | None) -> bool:
    if b is None or c is None:
        return False
    return abs(b - c) > _SAME * max(abs(b), abs(c))


def change(baseline: matching.BenchmarkRuns,
           contender: matching.BenchmarkRuns) -> WorkChange | None:
    """What changed in the work of one benchmark, or None."""
    labels = (_label(baseline), _label(contender))
    amounts = {}
    for rate, key in (("items_per_second", "items_per_iteration"),
                      ("bytes_per_second", "bytes_per_iteration")):
        b = per_iteration(baseline.iterations, rate)
        c = per_iteration(contender.iterations, rate)
        if _differs(b, c):
            amounts[key] = (b, c)
    if labels[0] == labels[1] and not amounts:
        return None
    return WorkChange(labels if labels[0] != labels[1] else None, **amounts)


def note(changes: dict[str, WorkChange]) -> str | None:
    """The comparison's note naming the benchmarks whose work changed."""
    if not changes:
        return None
    shown = "; ".join(f"{name}: {w.describe()}" for name, w in list(changes.items())[:5])
    more = f"; and {len(changes) - 5} more" if len(changes) > 5 else ""
    return (f"work changed in {len(changes)} benchmark(s), marked 'work "
            f"changed' in their rows: {shown}{more}; their counts may differ "
            "because the input did, not the code")
