#!/usr/bin/python3
"""Power and false points of the history's change-point detector on
generated series, default mode against the faithful (reference) one.

    cd scripts && /usr/bin/python3 -m dev.detector_power [--series N] [--seed S]

Each series is 200 commits of Gaussian noise (sd 1) around 100, with one
thing planted at commit 100: a step of d sd held H commits (H 200 - 100
means it holds to the end), or a spike of d sd held 1 commit, and in half
of the step series a 2-commit outlier of 8 sd five commits after the step
ends. A step is found when a "step" point lies within 1 of its start; a
spike when a point of any kind lies there (the faithful mode has no kind).
False points are every other point, per 1,000 commits, plus the points on
pure noise. Prints one table; exit 0 (a report, not a gate), 2 on a bad
argument.
"""

from __future__ import annotations

import argparse
import sys

from pmubench.base import launch  # noqa: E402

launch.ensure("detector_power.py", launch.COMPARE_NEEDS)

import numpy as np  # noqa: E402

from pmubench.history import edivisive  # noqa: E402

LENGTH, AT = 200, 100
CASES = [("step", d, h, outlier) for d in (2, 4, 8) for h in (3, 7, 100)
         for outlier in (False, True)] + [("spike", d, 1, False) for d in (4, 8, 16)]


def planted(kind: str, d: float, held: int, outlier: bool, rng) -> np.ndarray:
    x = 100 + rng.normal(0, 1, LENGTH)
    x[AT:AT + held] += d
    if outlier and AT + held + 7 <= LENGTH:
        x[AT + held + 5:AT + held + 7] += 8
    return x


def score(x: np.ndarray, kind: str, held: int, outlier: bool, faithful: bool
          ) -> tuple[bool, int]:
    """(found, false points) of one series."""
    points, _ = edivisive.detect(x, 30, 0.001, faithful=faithful)
    true = {AT, AT + held} if kind == "step" and AT + held < LENGTH else {AT}
    if outlier:
        true |= {AT + held + 5, AT + held + 7}
    hit = [p for p in points if any(abs(p.index - t) <= 1 for t in true)]
    wanted = [p for p in hit if abs(p.index - AT) <= 1
              and (faithful or kind == "spike" or p.kind == "step")]
    return bool(wanted), len(points) - len(hit)


def table(series: int, seed: int) -> list[str]:
    lines = ["| planted | default: found | faithful: found |", "|---|---|---|"]
    false = {False: 0, True: 0}
    commits = 0
    for kind, d, held, outlier in CASES:
        found = {False: 0, True: 0}
        for i in range(series):
            x = planted(kind, d, held, outlier, np.random.default_rng([seed, i, d, held]))
            commits += LENGTH
            for faithful in (False, True):
                ok, wrong = score(x, kind, held, outlier, faithful)
                found[faithful] += ok
                false[faithful] += wrong
        what = (f"{kind} {d} sd held {held if held < LENGTH - AT else 'to the end'}"
                + (", 2-commit outlier after" if outlier else ""))
        lines.append(f"| {what} | {found[False]}/{series} | {found[True]}/{series} |")
    noise = {f: 0 for f in (False, True)}
    for i in range(series):
        x = 100 + np.random.default_rng([seed, 99, i]).normal(0, 1, 1000)
        for faithful in (False, True):
            noise[faithful] += len(edivisive.detect(x, 30, 0.001, faithful=faithful)[0])
    lines.append(f"| false points per 1,000 commits, planted series | "
                 f"{1000 * false[False] / commits:.2f} | {1000 * false[True] / commits:.2f} |")
    lines.append(f"| false points per 1,000 commits, pure noise | "
                 f"{noise[False] / series:.2f} | {noise[True] / series:.2f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="detector_power.py", description=__doc__.split("\n")[0])
    parser.add_argument("--series", type=int, default=50, help="series per case (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.series < 1:
        parser.error(f"--series {args.series}: give at least 1")
    print(f"window 30, p 0.001, {args.series} series per case, seed {args.seed}")
    print("\n".join(table(args.series, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
