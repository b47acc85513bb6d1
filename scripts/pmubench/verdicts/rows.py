"""One row of a comparison: a (metric, benchmark) pair, its two sides, the
mode that judged it and its verdict (comparison.py explains the modes).

Apart from comparison.py so that gates.py, which judges what rows could
catch, and comparison.py, which builds them and calls gates.py, both
import it and not each other.

A row and its sides are named tuples, immutable, as stats.Interval: a
large suite has hundreds of thousands of rows, which comparison.py makes
a column at a time in C (tuple.__new__ over the columns); a dataclass's
__init__ is a Python call per object, and its attributes take more room
and time to read.
"""

from __future__ import annotations

from typing import NamedTuple

from pmubench.runs import matching
from pmubench.verdicts import stats, thresholds
from pmubench.verdicts.work import WorkChange

# Verdicts.
REGRESSION = "regression"
IMPROVEMENT = "improvement"
NO_CHANGE = "no significant change"
NOT_GATED = "not gated"

# Modes.
U_TEST = "u-test"
FEW_REPS = "few reps"
FEW_ROUNDS = "few rounds"
THRESHOLD_ONLY = "threshold only"


class Side(NamedTuple):
    center: float
    n: int
    source: str             # matching.REPETITIONS, ... SINGLE_RUN
    values: list[float]
    rounds: int = 1         # runs merged into the file, in order

    def round_medians(self) -> list[float]:
        """Each run's median (the whole sample as one run when the
        repetitions do not split evenly into the file's rounds)."""
        if self.source != matching.REPETITIONS or self.n % self.rounds:
            return [stats.median(self.values)]
        size = self.n // self.rounds
        return [stats.median(self.values[i * size:(i + 1) * size])
                for i in range(self.rounds)]


class Row(NamedTuple):
    benchmark: str
    metric: str
    unit: str               # time unit for times, "" otherwise
    baseline: Side
    contender: Side
    change: float           # relative, e.g. 0.05 for +5%; may be +-inf
    p_value: float | None
    interval: stats.Interval | None
    mode: str
    threshold: thresholds.Threshold
    higher_is_better: bool
    verdict: str
    # The benchmark's label or items/bytes per iteration differ between
    # the files (work.py); None when its work is the same.
    work: WorkChange | None = None
    # Facts every format prints, found by comparison.compare as it makes
    # the row, so that no renderer decides them: the change is beyond the
    # metric's threshold and floor (gates.changed_beyond); the row is a
    # simulator's time that no verdict judged (valgrind's, not the
    # code's); the metric is an exact count, printed with all its digits.
    changed_beyond: bool = False
    simulator_time: bool = False
    exact: bool = False
