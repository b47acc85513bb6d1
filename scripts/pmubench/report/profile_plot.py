"""Bar charts of the top functions of each profiled case (--pmubench_profile).

    /usr/bin/python3 -m pmubench.report.profile_plot RUN.json -o DIR

reads the "pmubench_profile" lists of the iteration runs (the first run of
each name: repetitions of a case share one profile) and writes one PNG per
case into DIR, the share of samples of each function as a horizontal bar,
labelled with the function's hottest source line where the run's
"pmubench_profile_lines" has one.
Exit 2 on bad input (no such file, not JSON, no profile in it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


class BadInput(Exception):
    pass


def profiles(path: str) -> list[tuple[str, str, list[dict], list[dict]]]:
    """(run name, event, functions, lines) for each profiled run, first
    seen."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: {e}") from None
    result, seen = [], set()
    for run in data.get("benchmarks", []) if isinstance(data, dict) else []:
        funcs = run.get("pmubench_profile")
        name = run.get("run_name", run.get("name"))
        if not isinstance(funcs, list) or name in seen:
            continue
        seen.add(name)
        lines = run.get("pmubench_profile_lines")
        result.append((name, str(run.get("pmubench_profile_event", "")), funcs,
                       lines if isinstance(lines, list) else []))
    if not result:
        raise BadInput(f"{path}: no run has a pmubench_profile; run the "
                       "benchmark with --pmubench_profile=EVENT[@PERIOD]")
    return result


def file_name(run_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", run_name) + ".png"


def bar_labels(funcs: list[dict], lines: list[dict]) -> list[str]:
    """Each function's name cut to 60 characters, then its hottest line
    ("fresh_pages.h:37") where `lines` (most samples first) has one."""
    hottest: dict[str, str] = {}
    for line in lines:
        where = f"{os.path.basename(str(line['file']))}:{line['line']}"
        hottest.setdefault(str(line["symbol"]), where)
    labels = []
    for f in funcs:
        symbol = str(f["symbol"])
        at = hottest.get(symbol)
        labels.append(symbol[:60] + (f"  ({at})" if at else ""))
    return labels


def plot_case(run_name: str, event: str, funcs: list[dict], lines: list[dict],
              out: str) -> None:
    labels = bar_labels(funcs, lines)[::-1]
    shares = [100.0 * float(f["share"]) for f in funcs][::-1]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(funcs) + 1.2))
    ax.barh(range(len(funcs)), shares)
    ax.set_yticks(range(len(funcs)), labels)
    ax.set_xlabel(f"% of {event} samples")
    ax.set_xlim(0, 100)
    ax.set_title(run_name)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("json")
    parser.add_argument("-o", "--outdir", required=True)
    args = parser.parse_args(argv)
    try:
        cases = profiles(args.json)
    except BadInput as e:
        print(f"profile_plot: error: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.outdir, exist_ok=True)
    for name, event, funcs, lines in cases:
        plot_case(name, event, funcs, lines,
                  os.path.join(args.outdir, file_name(name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
