"""What a comparison could catch, said from the data.

- `catches_slowdown(row)`: a row whose verdict could have been
  "regression" for a slower binary: gated (not "not gated"), and either
  deterministic (instruction-class, or simulated) with a count that is not
  zero in both files, or machine-dependent (times, cycles, misses) judged
  by the Mann-Whitney test ("u-test" mode: enough repetitions, or rounds,
  for p < alpha). Values a benchmark declares (expected_*: a constant the
  source sets) are deterministic but catch nothing.
- `inconclusive_reason`: when no row of the whole comparison catches a
  slowdown, why, computed from the files ("no instruction-class counter in
  either file; times need 4 rounds a side for the test at alpha 0.05 and
  these files have 2"); compare.py then exits 4 (inconclusive) unless
  --allow-inconclusive. A comparison where some benchmarks are gated and
  others blind is judged, with `blind_warnings` naming the blind ones.
- `refused_thresholds`: a --threshold METRIC=PCT (any selector but
  "default") whose rows are all "not gated" because the sample is too
  small for the test is refused (exit 2) with what the files would need:
  an explicit request to gate is honoured or refused, never silently
  dropped. (Chosen over gating with weaker evidence: complete separation
  of 2 or 3 run medians happens by chance in 1 pair of samples in 3 or 10,
  which failed every A/A comparison of the suite; docs/comparing.md, "How
  a row is judged".)
- `check_selectors`: a --threshold or --metrics selector that names no
  metric of either file ('instrutions=0.5') is bad input naming the near
  names; "time" and "default" are always valid.
"""

from __future__ import annotations

import difflib
import fnmatch
import operator
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from pmubench.runs import benchjson
from pmubench.runs import matching
from pmubench.verdicts import metrics, stats, thresholds
from pmubench.verdicts.rows import (FEW_REPS, FEW_ROUNDS, NOT_GATED, THRESHOLD_ONLY,
                                    U_TEST, Row)

_BENCHMARK = operator.attrgetter("benchmark")

# Values a benchmark declares rather than counts (the model's).
DECLARED_PATTERNS = metrics.DECLARED_PATTERNS

ENABLE_COUNTS = ("count instructions to gate code changes exactly "
                 "(--counters=instructions on a machine with a hardware PMU, "
                 "scripts/pmu-vm, or pmubench's callgrind backend where there "
                 "is no PMU)")


@lru_cache(maxsize=1024)
def is_declared(metric: str) -> bool:
    base = benchjson.base_name(metric)
    return any(fnmatch.fnmatchcase(base, p) for p in DECLARED_PATTERNS)


def is_counting(row: Row) -> bool:
    """A deterministic row that counts something (not a declared value)."""
    return row.threshold.deterministic and not is_declared(row.metric)


def catches_slowdown(row: Row) -> bool:
    if row.verdict == NOT_GATED:
        return False
    if row.threshold.deterministic:
        return (not is_declared(row.metric)
                and (row.baseline.center != 0 or row.contender.center != 0))
    return row.mode == U_TEST


def changed_beyond(row: Row) -> bool:
    """The change is beyond the metric's threshold (its class's default
    when the rule is off) and its floor: what a gate would have flagged."""
    pct = _gate_pct(row.threshold)
    if pct is None or row.change != row.change:   # info metric, or NaN
        return False
    return (abs(row.change) * 100.0 > pct and
            abs(row.contender.center - row.baseline.center) >= row.threshold.floor)


def _gate_pct(threshold: thresholds.Threshold) -> float | None:
    """The percentage changed_beyond holds a change to: the threshold's,
    else its class's default (None for an info metric)."""
    pct = threshold.pct
    if pct is None:
        pct = metrics.CLASS_BY_NAME[threshold.metric_class].threshold_pct
    return pct


def changed_beyond_block(changes: list[float], b_centers: list[float],
                         c_centers: list[float], threshold: thresholds.Threshold
                         ) -> list[bool]:
    """changed_beyond of rows of one threshold, given as columns: the same
    arithmetic on float64 arrays (a NaN change compares False), for a
    block of hundreds of thousands of rows."""
    pct = _gate_pct(threshold)
    if pct is None:
        return [False] * len(changes)
    change = np.asarray(changes, dtype=float)
    moved = np.abs(np.asarray(c_centers, dtype=float) - np.asarray(b_centers, dtype=float))
    return ((np.abs(change) * 100.0 > pct) & (moved >= threshold.floor)).tolist()


def needed_size(alpha: float) -> int:
    """The smallest k for which k vs k values can reach p < alpha."""
    k = 2
    while stats.min_two_sided_p(k, k) >= alpha and k < 1000:
        k += 1
    return k


def _pair(a: int, b: int) -> str:
    return f"{a} a side" if a == b else f"{a} and {b}"


def _subject(rows: list[Row]) -> tuple[str, str]:
    """How to name the metrics of rows, and the verb's ending: ('times',
    'need'), ('cpu_time', 'needs')."""
    names = list(dict.fromkeys(r.metric for r in rows))
    if len(names) == 1:
        return names[0], "needs"
    if all(metrics.CLASS_BY_NAME[r.threshold.metric_class].kind == metrics.TIME
           for r in rows):
        return "times", "need"
    return "times and the other machine-dependent metrics", "need"


def test_cause(rows: list[Row], alpha: float, baseline_path: str,
               contender_path: str) -> str:
    """Why machine-dependent rows, gated in principle, were not tested:
    'times need 4 rounds a side for the test at alpha 0.05; these files
    have 2 (ci_compare.sh --rounds 4)'."""
    subject, need = _subject(rows)
    k = needed_size(alpha)
    modes = Counter(r.mode for r in rows)
    mode = modes.most_common(1)[0][0]
    sample = [r for r in rows if r.mode == mode]
    if mode == FEW_ROUNDS:
        b, c = Counter((r.baseline.rounds, r.contender.rounds)
                       for r in sample).most_common(1)[0][0]
        return (f"{subject} {need} {k} rounds a side for the test at alpha "
                f"{alpha:g}, and these files have {_pair(b, c)} (each round is "
                f"one value; ci_compare.sh --rounds {k})")
    if mode == FEW_REPS:
        b, c = Counter((r.baseline.n, r.contender.n) for r in sample).most_common(1)[0][0]
        return (f"{subject} {need} {k} repetitions a side for the test at alpha "
                f"{alpha:g}, and these files have {_pair(b, c)} "
                f"(--benchmark_repetitions={k}; ci_compare.sh --reps {k})")
    if mode == THRESHOLD_ONLY:
        lacks = {}
        for path, side in ((baseline_path, "baseline"), (contender_path, "contender")):
            source = Counter(getattr(r, side).source for r in sample).most_common(1)[0][0]
            if source == matching.SINGLE_RUN:
                lacks[side] = (path, "one run per benchmark")
            elif source in (matching.MEDIAN_AGGREGATE, matching.MEAN_AGGREGATE):
                lacks[side] = (path, "aggregates only (--benchmark_report_aggregates_only)")
        if len(lacks) == 2 and lacks["baseline"][1] == lacks["contender"][1]:
            what = f"both files hold {lacks['baseline'][1]}"
        else:
            what = " and ".join(f"{path} holds {text}" for path, text in lacks.values())
        return (f"{subject} {need} repetitions on both sides for the test "
                f"({k} or more a side at alpha {alpha:g}), and "
                f"{what or 'a side has none'}")
    return f"{subject} were not tested"


@dataclass
class MetricsSeen:
    """Which metrics the comparison could have had rows of: those of
    either file, those --metrics selected (every one without it), and
    each metric one file lacks, with the path of that file."""
    in_files: list[str]
    selected: list[str]
    lacking: dict[str, str] = field(default_factory=dict)


def _no_counter_rows_cause(seen: MetricsSeen) -> str:
    """Why no row counts instructions: --metrics left the counters out,
    a file lacks them, or neither file has one."""
    counters = [m for m in seen.in_files
                if thresholds.resolve(m, []).deterministic and not is_declared(m)]
    if not counters:
        return "no instruction-class counter in either file"
    left_out = [m for m in counters if m not in seen.selected]
    if left_out:
        return ("--metrics left out the instruction-class counters "
                f"({', '.join(left_out[:4])})")
    by_file: dict[str, list[str]] = {}
    for m in counters:
        if m in seen.lacking:
            by_file.setdefault(seen.lacking[m], []).append(m)
    if by_file:
        return "; ".join(f"{path} lacks the instruction-class counters the other "
                         f"file has ({', '.join(names[:4])})"
                         for path, names in by_file.items())
    return ("no benchmark of both files has the instruction-class counters "
            f"({', '.join(counters[:4])})")


def _counter_cause(rows: list[Row], seen: MetricsSeen) -> str | None:
    """Why no instruction-class row catches a slowdown, or None when one
    could."""
    counting = [r for r in rows if is_counting(r)]
    if not counting:
        return _no_counter_rows_cause(seen)
    gated = [r for r in counting if r.threshold.pct is not None]
    if not gated:
        sources = ", ".join(dict.fromkeys(r.threshold.source for r in counting))
        return f"the instruction-class thresholds are off (--threshold {sources})"
    if all(r.baseline.center == 0 and r.contender.center == 0 for r in gated):
        names = list(dict.fromkeys(r.metric for r in gated))
        verb = "is" if len(names) == 1 else "are"
        return ("no instruction-class counter with a non-zero value "
                f"({', '.join(names)} {verb} zero in both files)")
    return None


def _machine_cause(rows: list[Row], seen: MetricsSeen, alpha: float,
                   baseline_path: str, contender_path: str) -> str | None:
    """Why no machine-dependent row catches a slowdown, or None."""
    machine = [r for r in rows if not r.threshold.deterministic
               and not r.threshold.simulator_time]
    gated = [r for r in machine if r.threshold.pct is not None]
    if gated:
        return test_cause(gated, alpha, baseline_path, contender_path)
    off = [r for r in machine if metrics.CLASS_BY_NAME[r.threshold.metric_class]
           .threshold_pct is not None]
    if off:
        sources = ", ".join(dict.fromkeys(r.threshold.source for r in off))
        return f"the time thresholds are off (--threshold {sources})"
    if not any(metrics.is_time(r.metric) for r in rows) and any(
            metrics.is_time(m) for m in seen.in_files):
        return "--metrics left out the times"
    return None


def inconclusive_reason(rows: list[Row], seen: MetricsSeen, alpha: float,
                        baseline_path: str, contender_path: str) -> str | None:
    """None when some row catches a slowdown; else why nothing does."""
    if any(catches_slowdown(r) for r in rows):
        return None
    judged = [r for r in rows if not r.threshold.simulator_time]
    if judged and all(r.threshold.pct is None for r in judged):
        sources = [r.threshold.source for r in rows if r.threshold.source != "default"]
        if sources:
            return ("every threshold is off (--threshold "
                    f"{', '.join(dict.fromkeys(sources))})")
        names = ", ".join(dict.fromkeys(r.metric for r in rows))
        return (f"only metrics that are never gated were compared ({names}): "
                "they describe the machine, not the code")
    causes = [c for c in (_counter_cause(rows, seen),
                          _machine_cause(rows, seen, alpha,
                                         baseline_path, contender_path)) if c]
    text = "; ".join(causes) or "no row was gated"
    if any(c.startswith("no instruction-class") for c in causes):
        text += f"; {ENABLE_COUNTS}"
    return text


def blind_benchmarks(rows: list[Row], catching: list[Row] | None = None) -> set[str]:
    """The benchmarks with no row that catches a slowdown (catching, when
    given: the rows of rows that do, in order, found once by the caller)."""
    if catching is None:
        catching = list(filter(catches_slowdown, rows))
    return set(map(_BENCHMARK, rows)).difference(map(_BENCHMARK, catching))


def blind_warnings(rows: list[Row], alpha: float, baseline_path: str,
                   contender_path: str, catching: list[Row] | None = None) -> list[str]:
    """For a comparison that is not inconclusive: the benchmarks that have
    no row that catches a slowdown, or that rest on times alone (catching
    as blind_benchmarks takes it)."""
    benchmarks = list(dict.fromkeys(map(_BENCHMARK, rows)))
    if catching is None:
        catching = list(filter(catches_slowdown, rows))
    caught = set(map(_BENCHMARK, catching))
    counted = set(map(_BENCHMARK, filter(is_counting, catching)))
    blind = [b for b in benchmarks if b not in caught]
    out = []
    if blind:
        blind_rows = [r for r in rows if r.benchmark in blind]
        machine = [r for r in blind_rows if not r.threshold.deterministic
                   and r.threshold.pct is not None]
        why = (test_cause(machine, alpha, baseline_path, contender_path)
               if machine else "nothing else is gated there")
        out.append(
            f"{len(blind)} of {len(benchmarks)} benchmarks (e.g. "
            f"{', '.join(blind[:3])}) have no instruction-class counter with a "
            f"non-zero value and no tested time: {why}; a slowdown there cannot "
            f"fail this comparison; {ENABLE_COUNTS}")
    timed_only = [b for b in benchmarks if b in caught and b not in counted]
    if timed_only:
        det = [r for r in rows if is_counting(r) and r.threshold.pct is not None]
        if len(timed_only) == len(benchmarks):
            if det:
                names = ", ".join(dict.fromkeys(r.metric for r in det))
                reason = f"every deterministic metric ({names}) is zero in both files"
            else:
                reason = "neither file has an instruction-class counter"
            out.append(f"nothing deterministic was gated: {reason}, so only times "
                       "and other machine-dependent metrics decide this result, "
                       f"and a shared machine moves those between runs; {ENABLE_COUNTS}")
        else:
            out.append(
                f"{len(timed_only)} of {len(benchmarks)} benchmarks (e.g. "
                f"{', '.join(timed_only[:3])}) have no instruction-class counter "
                "with a non-zero value: only times and other machine-dependent "
                "metrics judge them, and a shared machine moves those between "
                f"runs; {ENABLE_COUNTS}")
    return out


def refused_thresholds(rows: list[Row], overrides: list[thresholds.Override],
                       alpha: float, baseline_path: str, contender_path: str
                       ) -> list[str]:
    """One message per --threshold rule with a percentage (not "default")
    whose every row is "not gated": the files cannot support it."""
    out = []
    for text in dict.fromkeys(thresholds.override_text(o) for o in overrides
                              if o.selector != "default" and o.threshold_pct is not None):
        governed = [r for r in rows if r.threshold.source == text]
        if governed and all(r.verdict == NOT_GATED for r in governed):
            out.append(f"--threshold {text}: gates nothing on these files: "
                       f"{test_cause(governed, alpha, baseline_path, contender_path)}"
                       f"; run with that, or drop --threshold {text}")
    return out


def _names_matched(selector: str, names: list[str]) -> bool:
    return any(thresholds.matches(selector, m) for m in names)


def _near(selector: str, names: list[str]) -> str:
    candidates = list(dict.fromkeys(
        names + [benchjson.base_name(m) for m in names]))
    close = difflib.get_close_matches(selector, candidates, n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(close) + "?"
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return f"their metrics: {shown}"


def check_selectors(overrides: list[thresholds.Override], patterns: list[str] | None,
                    names: list[str], baseline_path: str, contender_path: str) -> None:
    """Raises BadInput for a --threshold selector or --metrics pattern
    that names no metric of either file."""
    where = f"{baseline_path} or {contender_path}"
    for o in overrides:
        if o.selector in ("time", "default") or _names_matched(o.selector, names):
            continue
        raise benchjson.BadInput(
            f"--threshold {thresholds.override_text(o)}: no metric of {where} "
            f"is named or matches {o.selector!r}; {_near(o.selector, names)}")
    for p in patterns or []:
        if p == "time" or _names_matched(p, names):
            continue
        raise benchjson.BadInput(
            f"--metrics {p}: no metric of {where} is named or matches {p!r}; "
            f"{_near(p, names)}")
