#!/usr/bin/python3
"""Checks the history's change-point detector against reference series.

    cd scripts && /usr/bin/python3 -m dev.check_detector DIR

DIR holds, per series NAME, NAME.csv (columns index,value; an empty value
is a missing run) and NAME.expected.json (a list of "cases", each with a
"reference", "method", "params" and "expected_change_points"). Every case
of the reference "apache/otava" whose method is compute_change_points is
run through pmubench.history.edivisive.detect with the same window,
max p-value and min magnitude, in its faithful mode and its default, and
its steps compared: exact (same indexes), within
one (each point within +-1, none extra or missing), or different. The
default's spikes (kind "spike": one or two commits away that return) are
not steps, so they are listed beside the verdict and left out of it; the
totals also say how many cases match with the spikes counted as points
(Otava, which has no spikes, reports such an excursion as two steps, or
none). Prints
one line per case, the totals, the CPU time per 10,000 points, the false
points on Gaussian noise generated here, and the power on planted steps.
Exit 0 always (a report, not a gate); 2 when DIR is not such a directory.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import sys
import time

from pmubench.base import launch  # noqa: E402

launch.ensure("check_detector.py", launch.COMPARE_NEEDS)

import numpy as np  # noqa: E402

from pmubench.history import edivisive  # noqa: E402


def read_series(path: str) -> np.ndarray:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return np.array([float(r["value"]) if r["value"] not in ("", None) else np.nan
                     for r in rows])


def within_one(got: list[int], want: list[int]) -> bool:
    return len(got) == len(want) and all(abs(g - w) <= 1 for g, w in zip(got, want))


def otava_cases(expected: dict) -> list[dict]:
    return [c for c in expected.get("cases", [])
            if c.get("reference") == "apache/otava"
            and "compute_change_points" in c.get("method", "")]


def run_case(x: np.ndarray, params: dict, faithful: bool
             ) -> tuple[list[int], list[int], float]:
    """(steps, spikes, CPU seconds) of the detector on x."""
    start = time.process_time()
    points, _ = edivisive.detect(x, params.get("window_len", 50),
                                 params.get("max_pvalue", 0.001),
                                 params.get("min_magnitude", 0.0), faithful)
    return ([p.index for p in points if p.kind == "step"],
            [p.index for p in points if p.kind == "spike"], time.process_time() - start)


def check_directory(directory: str, faithful: bool) -> dict:
    totals = {"cases": 0, "exact": 0, "within_one": 0, "cpu": 0.0, "points": 0,
              "exact_with_spikes": 0}
    for path in sorted(glob.glob(os.path.join(directory, "*.expected.json"))):
        name = os.path.basename(path)[:-len(".expected.json")]
        with open(path, encoding="utf-8") as f:
            expected = json.load(f)
        x = read_series(os.path.join(directory, name + ".csv"))
        for case in otava_cases(expected):
            got, spikes, cpu = run_case(x, case["params"], faithful)
            want = case["expected_change_points"]
            totals["exact_with_spikes"] += sorted(got + spikes) == want
            verdict = ("exact" if got == want else
                       "within-one" if within_one(got, want) else "DIFFERENT")
            totals["cases"] += 1
            totals["exact"] += verdict == "exact"
            totals["within_one"] += verdict != "DIFFERENT"
            totals["cpu"] += cpu
            totals["points"] += len(x)
            print(f"{name:32} {json.dumps(case['params']):62} {verdict:10} "
                  f"ours {len(got):3} ref {len(want):3} "
                  f"{cpu / max(len(x), 1) * 1e4:.3f} s CPU/10k points"
                  + (f" spikes {summary(spikes)}" if spikes else "")
                  + ("" if verdict != "DIFFERENT" else
                     f"\n    ours {summary(got)}\n    ref  {summary(want)}"))
    return totals


def summary(points: list[int]) -> str:
    return str(points) if len(points) <= 24 else f"{points[:12]} ... {points[-6:]}"


def noise_check(faithful: bool) -> None:
    """False points on 20 series of 1,000 Gaussian points (no step), and
    the power on 40 series of 100 + 100 points with one step of d
    standard deviations (found: a point within 2 of it; extra: others)."""
    mode = "reference (faithful)" if faithful else "pmubench default"
    for window, p in ((30, 0.001), (50, 0.001), (30, 0.01)):
        rng = np.random.default_rng(7)
        false = sum(len(edivisive.detect(1000 + rng.normal(0, 10, 1000), window,
                                         p, 0.0, faithful)[0]) for _ in range(20))
        print(f"{mode}: pure noise, 20 x 1000 points, window {window} p {p}: "
              f"{false} false points")
    rng = np.random.default_rng(11)
    for d in (0.5, 1, 2, 3):
        found = extra = 0
        for _ in range(40):
            x = 100 + np.concatenate([rng.normal(0, 1, 100), rng.normal(d, 1, 100)])
            got = [c.index for c in edivisive.detect(x, 30, 0.001, 0.0, faithful)[0]]
            found += any(abs(g - 100) <= 2 for g in got)
            extra += sum(abs(g - 100) > 2 for g in got)
        print(f"{mode}: step of {d} sd, window 30 p 0.001: found {found}/40, "
              f"{extra} extra points")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", metavar="DIR")
    args = parser.parse_args()
    if not glob.glob(os.path.join(args.directory, "*.expected.json")):
        print(f"check_detector.py: error: {args.directory}: no *.expected.json "
              "files; give the directory of reference series", file=sys.stderr)
        return 2
    for faithful in (True, False):
        mode = "reference (faithful)" if faithful else "pmubench default"
        print(f"== {mode} ==")
        t = check_directory(args.directory, faithful)
        print(f"{mode}: Otava cases: {t['cases']}; same indexes {t['exact']}; "
              f"same or within one {t['within_one']}; same indexes with the spikes "
              f"counted as points {t['exact_with_spikes']}")
        print(f"{mode}: CPU {t['cpu']:.3f} s for {t['points']} points: "
              f"{t['cpu'] / max(t['points'], 1) * 1e4:.3f} s per 10,000 points")
        noise_check(faithful)
    return 0


if __name__ == "__main__":
    sys.exit(main())
