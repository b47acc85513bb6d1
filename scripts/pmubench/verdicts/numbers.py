"""How a metric's values and changes are written, in one place for every
output (history detect, judge and report pages; compare's formats).

An exact count keeps all its digits, grouped by thousands, with its
absolute change and a percentage precise enough to be non-zero:
`4,075,360 -> 4,075,361 (+1, +0.00002%)`. Anything else has six
significant digits and a percentage with two decimals:
`1.2345e+06 -> 1.3e+06 (+5.30%)`.
"""

from __future__ import annotations

import math

# Decimals an exact count per iteration keeps at most (a slope over two
# batch sizes can be fractional).
MAX_DECIMALS = 6


def count_text(value: float, signed: bool = False) -> str:
    """An exact count with every digit: '4,075,360', '12.5', '+1'."""
    sign = "+" if signed else ""
    if value == int(value) and abs(value) < 2 ** 63:
        return f"{int(value):{sign},}"
    text = f"{value:{sign},.{MAX_DECIMALS}f}".rstrip("0").rstrip(".")
    return text


def pct_text(change: float) -> str:
    """A relative change as a signed percentage: two decimals, or as many
    as it takes to show its first significant digit (+0.00002%)."""
    pct = change * 100.0
    if not math.isfinite(pct):
        return "from 0"
    if pct == 0 or abs(pct) >= 0.01:
        return f"{pct:+.2f}%"
    decimals = -math.floor(math.log10(abs(pct)))
    return f"{pct:+.{decimals}f}%"


def value_text(value: float, exact: bool) -> str:
    return count_text(value) if exact else f"{value:.6g}"


def change_text(before: float, after: float, exact: bool) -> str:
    """'4,075,360 -> 4,075,361 (+1, +0.00002%)' for an exact count,
    '1.5 -> 1.6 (+6.67%)' otherwise; 'from 0' when before is 0."""
    if before:
        pct = pct_text(after / before - 1)
    else:
        pct = "from 0" if after else "+0.00%"
    head = f"{value_text(before, exact)} -> {value_text(after, exact)}"
    if exact:
        return f"{head} ({count_text(after - before, signed=True)}, {pct})"
    return f"{head} ({pct})"
