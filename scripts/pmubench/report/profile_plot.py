"""Bar charts of the top functions of each profiled case (--pmubench_profile).

    /usr/bin/python3 -m pmubench.report.profile_plot RUN.json -o DIR

reads the "pmubench_profile" lists of the iteration runs (the first run of
each name: repetitions of a case share one profile) and writes one PNG per
case into DIR, the share of samples of each function as a horizontal bar,
labelled with the function's hottest source line where the run's
"pmubench_profile_lines" has one. reports/plot.py draws the same charts
into its report's "Profiles" section.
Exit 2 on bad input (no such file, not JSON, no profile in it).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Any

if __name__ == "__main__":  # python3 -m pmubench.report.profile_plot
    from pmubench.base import launch
    launch.ensure("profile_plot", launch.REPORT_NEEDS)

from pmubench.base.exits import EXIT_BAD_INPUT, EXIT_OK  # noqa: E402
from pmubench.runs import benchjson  # noqa: E402
from pmubench.runs.benchjson import BadInput  # noqa: E402
from pmubench.report import draw  # noqa: E402
from pmubench.report.model import PngNames  # noqa: E402


@dataclass
class CaseProfile:
    """The profile of one case, as its first iteration run carries it."""
    run_name: str
    event: str
    samples: int           # all samples of the profiled batch
    functions: list[dict]  # {"symbol", "samples", "share"}, most samples first
    lines: list[dict]      # {"symbol", "file", "line", "samples", "share"}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _entries(value: Any, keys: tuple[str, ...], path: str, name: str,
             field_name: str) -> list[dict]:
    """value as a list of objects holding keys, "samples", "share" and
    "line" numbers where present; BadInput naming the run otherwise."""
    ok = isinstance(value, list) and all(
        isinstance(e, dict) and all(k in e for k in keys)
        and all(_is_number(e[k]) for k in ("samples", "share", "line") if k in e)
        for e in value)
    if not ok:
        raise BadInput(f"{path}: run {name!r}: {field_name} must be a list of "
                       f"objects with {', '.join(keys)} (numbers for samples, "
                       "share, line); write the file again with "
                       "--pmubench_profile")
    return value


def profiles_of(data: Any, path: str) -> list[CaseProfile]:
    """Each profiled case of a parsed JSON file, in file order, the first
    run of each name (repetitions of a case share one profile); [] when no
    run has a "pmubench_profile"."""
    result, seen = [], set()
    runs = data.get("benchmarks", []) if isinstance(data, dict) else []
    for run in runs if isinstance(runs, list) else []:
        if not isinstance(run, dict) or "pmubench_profile" not in run:
            continue
        name = str(run.get("run_name", run.get("name")))
        if name in seen:
            continue
        seen.add(name)
        funcs = _entries(run["pmubench_profile"], ("symbol", "samples", "share"),
                         path, name, "pmubench_profile")
        lines = _entries(run.get("pmubench_profile_lines", []),
                         ("symbol", "file", "line", "samples"), path, name,
                         "pmubench_profile_lines")
        samples = run.get("pmubench_profile_samples")
        if not _is_number(samples):
            samples = sum(int(f["samples"]) for f in funcs)
        result.append(CaseProfile(name, str(run.get("pmubench_profile_event", "")),
                                  int(samples), funcs, lines))
    return result


def profiles(path: str) -> list[CaseProfile]:
    """profiles_of a file; BadInput when it has none."""
    result = profiles_of(benchjson.read_json(path), path)
    if not result:
        raise BadInput(f"{path}: no run has a pmubench_profile; run the "
                       "benchmark with --pmubench_profile=EVENT[@PERIOD]")
    return result


def is_counted(case: CaseProfile) -> bool:
    """A profile callgrind counted (event "callgrind/instructions/"): each
    of its "samples" is one instruction of the measured segment."""
    return case.event.startswith("callgrind/")


def axis_label(case: CaseProfile) -> str:
    if is_counted(case):
        return "% of the instructions of the measured segment"
    return f"% of {case.event} samples"


def caption(case: CaseProfile) -> str:
    """What a case's chart shows, in the report."""
    if is_counted(case):
        return (f"Share of the {case.samples} instructions of the measured "
                "segment, each counted by callgrind, in each of "
                "the top functions, with the function's hottest source line "
                "where the binary has line tables.")
    return (f"Share of the {case.samples} {case.event} samples of one extra "
            "batch (not a measured one) in each of the top functions, with "
            "the function's hottest source line where the binary has line "
            "tables.")


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


def plot_case(case: CaseProfile, out: str) -> None:
    """One PNG at out: the case's functions as bars of their share."""
    draw.profile_figure(out, case.run_name, bar_labels(case.functions, case.lines),
                          [100.0 * float(f["share"]) for f in case.functions],
                          axis_label(case))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("json")
    parser.add_argument("-o", "--outdir", required=True)
    args = parser.parse_args(argv)
    try:
        cases = profiles(args.json)
    except BadInput as e:
        print(f"profile_plot: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    os.makedirs(args.outdir, exist_ok=True)
    names = PngNames()  # distinct cases whose names slug alike get .2, .3
    for case in cases:
        plot_case(case, os.path.join(args.outdir, names.take(case.run_name)))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
