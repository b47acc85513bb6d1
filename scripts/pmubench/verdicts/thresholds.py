"""Per-metric thresholds: how large a change must be before it counts.

Every class, default and floor comes from the one metric model
(verdicts/metrics.py); this module resolves --threshold rules over it.

Defaults follow each metric's run-to-run noise (docs/comparing.md, "Default thresholds"; `compare.py
--help` prints the same table):

  class          threshold  floor     metrics
  allocation     0%         0.5/it    allocs_per_iter, alloc_bytes_per_iter,
                                      frees_per_iter, max_bytes_used
  deterministic  1%         0.01/it   instructions, branches,
                                      branch-instructions, page-faults,
                                      minor-faults, faults,
                                      L1-dcache-loads, L1-dcache-stores,
                                      INST_RETIRED*, BR_INST_RETIRED*,
                                      MEM_INST_RETIRED*, expected_*
  cycles         5%         0.01/it   cycles, cpu-cycles, bus-cycles,
                                      stalled-cycles-*, msr/aperf/,
                                      msr/mperf/, *CYCLES*
  cache          5%         0.01/it   *-misses, cache-references, LLC-*,
                                      and every other counter (user
                                      counters included)
  derived        5%         0.001     IPC, *-ratio
  time           10%        -         real_time, cpu_time, task-clock,
                                      cpu-clock, msr/tsc/, ref-cycles,
                                      duration_time, items_per_second,
                                      bytes_per_second, user counters
                                      named *tsc*, *ticks* or *_ns
  info           not gated  -         context-switches, cs,
                                      cpu-migrations, migrations,
                                      major-faults, alignment-faults,
                                      emulation-faults,
                                      pmu_running_fraction

Instructions and branches retired are set by the code and barely move run to
run, so 1% catches a real change. Cycles and cache misses follow what else
the machine is doing. Times on a shared CI machine move by several percent
between two runs of the same binary. Context switches, migrations and the
running fraction describe the machine, not the code: they are shown and
never fail a comparison unless given a threshold.

The floor is an absolute change per iteration (per unit for the 0..1
derived metrics) below which no change counts, whatever its percentage: a
counter that fires once every 10,000 iterations going to twice in 10,000 is
+100% but means nothing.

Event modifiers and PMU prefixes are ignored when classifying
(benchjson.base_name): "instructions:u" and "cpu/instructions/u" are
deterministic; "msr/tsc/" is a time; "IPC:u" is derived, higher is better;
--threshold instructions=2 also sets "instructions:u" (unless a rule names
"instructions:u" itself). `--threshold METRIC=PCT` overrides the default for METRIC, which may
be an exact metric name, a shell pattern ("*-misses"), "time" (every
metric of the time class above) or "default" (every metric no other rule names). PCT "off"
shows the metric without gating it. A later --threshold wins over an
earlier one; an exact name wins over a pattern. compare.py refuses a
selector that names no metric of either file (exit 2, naming the near
names), and a rule with a percentage that gates nothing because the files
hold too few repetitions or rounds for the test (exit 2, saying how many
it needs).

Counts a simulator wrote (pmubench's callgrind backend:
"callgrind/instructions/", "callgrind/LLC-load-misses/",
"callgrind/branch-miss-ratio/") are bit-identical run to run: they are
deterministic (Threshold.deterministic), gated in every mode, one run a
side included. They keep their class's threshold and floor (misses 5%),
except the instruction-class counts (the deterministic class:
callgrind/instructions/, callgrind/branches/, loads and stores), which
nothing but the code moves: 0.5% (SIMULATED_EXACT_PCT), so one instruction
more per iteration in a 100-instruction loop (+0.98%) is a regression, and
in general one instruction more per iteration fails a case of up to 199
instructions per iteration (a change of more than 1 in 200;
catches_one_in). Chosen over a tighter gate because a change of a few
instructions in a thousand is as often the compiler rearranging code as a
slowdown; --threshold callgrind/instructions/=0.1 gates one in a thousand.
simulated_gate_text says the gate in force in every format's header.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass

from pmubench.runs import benchjson
from pmubench.verdicts import metrics


# The model's classes, under the names compare's modules have used.
MetricClass = metrics.MetricClass
CLASSES = metrics.CLASSES
CLASS_BY_NAME = metrics.CLASS_BY_NAME
SIMULATED_EXACT_PCT = metrics.SIMULATED_EXACT_PCT
classify = metrics.classify
is_time = metrics.is_time


class ThresholdError(ValueError):
    """A malformed --threshold; the message says what is expected."""


@dataclass(frozen=True)
class Override:
    selector: str                 # exact name, pattern, "time" or "default"
    threshold_pct: float | None


def parse_override(text: str) -> Override:
    """Parses one '--threshold METRIC=PCT' argument ('instructions=0.5',
    'time=5', '*-misses=10', 'context-switches=off')."""
    selector, sep, value = text.rpartition("=")
    if not sep or not selector:
        raise ThresholdError(
            f"--threshold {text!r}: expected METRIC=PCT, e.g. instructions=1 "
            "or time=5 (PCT in percent, or 'off')")
    value = value.strip().rstrip("%")
    if value.lower() == "off":
        return Override(selector, None)
    try:
        pct = float(value)
    except ValueError:
        raise ThresholdError(
            f"--threshold {text!r}: {value!r} is not a number; give a "
            "percentage such as 5 or 0.5, or 'off'") from None
    if not math.isfinite(pct) or pct < 0:
        raise ThresholdError(
            f"--threshold {text!r}: the percentage must be finite and >= 0")
    return Override(selector, pct)


def _matches(selector: str, metric: str) -> bool:
    if selector == "time":
        return is_time(metric)
    return (fnmatch.fnmatchcase(metric, selector)
            or fnmatch.fnmatchcase(benchjson.base_name(metric), selector))


catches_one_in = metrics.catches_one_in


@dataclass(frozen=True)
class Threshold:
    pct: float | None             # None: not gated
    floor: float
    metric_class: str
    source: str                   # "default" or the --threshold text
    # Set by the code, not the machine: the "deterministic" class, and any
    # count a simulator wrote (benchjson.is_simulated: "callgrind/.../"),
    # whose class keeps its percentage (misses 5%) but which is
    # bit-identical run to run. Gated in every mode.
    deterministic: bool = False
    simulated: bool = False
    # A simulator's time (metrics.SIMULATOR_TIME): never judged by default.
    simulator_time: bool = False


def override_text(o: Override) -> str:
    """How a rule is shown and how Threshold.source names it: 'time=5'."""
    return f"{o.selector}={_pct_text(o.threshold_pct)}"


def resolve(metric: str, overrides: list[Override], backend: str = "native",
            layout_sensitive: bool = False) -> Threshold:
    """The threshold for one metric (of a run of backend, layout_sensitive
    when the run says so: metrics.describe): the last override naming it
    exactly, else the last naming its base name ('instructions' for
    'instructions:u'), else the last matching pattern/alias override, else
    'default=', else the model's default."""
    model = metrics.describe(metric, backend, layout_sensitive)
    cls = model.metric_class
    base = benchjson.base_name(metric)
    kind = {"deterministic": model.exact, "simulated": model.simulated,
            "simulator_time": model.kind == metrics.SIMULATOR_TIME}
    exact = [o for o in overrides if o.selector == metric]
    exact_base = [o for o in overrides if o.selector == base != metric]
    pattern = [o for o in overrides
               if o.selector not in (metric, base, "default")
               and _matches(o.selector, metric)]
    fallback = [o for o in overrides if o.selector == "default"]
    if fallback and cls.kind != metrics.INFO:
        pattern = pattern or [fallback[-1]]
    for group in (exact, exact_base, pattern):
        if group:
            o = group[-1]
            return Threshold(o.threshold_pct, cls.floor, cls.name,
                             override_text(o), **kind)
    return Threshold(model.default_pct, cls.floor, cls.name, "default", **kind)


def matches(selector: str, metric: str) -> bool:
    """True when a --threshold selector (or a --metrics pattern) names
    metric: "time" its class, else the name or its base name, exactly or
    as a shell pattern ("default" is handled by the callers)."""
    return _matches(selector, metric)


def _pct_text(pct: float | None) -> str:
    return "off" if pct is None else f"{pct:g}"


defaults_table = metrics.defaults_table


def _gate_text(pct: float | None, source: str) -> str:
    where = "the default" if source == "default" else f"--threshold {source}"
    if pct is None:
        return f"are not gated ({where})"
    if pct == 0:
        return f"fail on any change of 0.01 per iteration or more ({where})"
    n = catches_one_in(pct)
    return (f"fail beyond {pct:g}% ({where}): one instruction more per "
            f"iteration fails a case of up to {n:,} instructions per iteration")


def simulated_gate_text(used: list[Threshold]) -> str | None:
    """What gates the simulated instruction-class counts among the
    thresholds used ('Simulated instruction-class counts fail beyond 0.5%
    (the default): one instruction more per iteration fails a case of up
    to 199 instructions per iteration'); None when none was used."""
    gates = dict.fromkeys((t.pct, t.source) for t in used
                          if t.simulated and t.metric_class == metrics.INSTRUCTION_CLASS)
    if not gates:
        return None
    return ("Simulated instruction-class counts "
            + "; ".join(_gate_text(pct, source) for pct, source in gates))
