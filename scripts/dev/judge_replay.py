#!/usr/bin/python3
"""Replays a history through `judge`, as a pull request of each commit would
have been judged, and prints how often it cried wolf.

    cd scripts && /usr/bin/python3 -m dev.judge_replay DIR [--generate]

DIR holds one run file per commit, NNNN-SHA.json (Google Benchmark JSON
as pmubench writes it), replayed in name order: each run is judged
against a fresh SQLite history of the runs before it, then ingested. At
the end the detector runs over the whole history; an exit-1 run is
confirmed when a series it judged a regression has a change point (step or
spike) at its commit, else unconfirmed. --generate first writes into the
empty or new DIR a noisy history: 20 benchmarks' real_time over 200
commits, each run on one of 4 hosted runners whose levels differ by a
3% sd and which is kept for a stretch of runs (mean 4), 1% commit noise,
and one planted regression, BM_1 +20% from commit 150 on.
Prints the exit counts and the unconfirmed rate; exit 0, 2 on a bad DIR.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import shutil
import sys
import tempfile

from pmubench.base import launch  # noqa: E402

launch.ensure("judge_replay.py", launch.HISTORY_NEEDS)

import numpy as np  # noqa: E402

from pmubench.history import detect, ingest, judge, store, synthetic  # noqa: E402

START = 1_700_000_000.0
PLANTED = ("BM_1", 150, 0.20)


def commit_of(i: int) -> str:
    """The generated history's commit i."""
    return hashlib.sha1(f"commit {i}".encode()).hexdigest()


def generate(directory: str, commits: int = 200, benchmarks: int = 20, seed: int = 1) -> None:
    """Writes the noisy history the docstring describes into directory."""
    rng = np.random.default_rng(seed)
    runners = 1 + rng.normal(0, 0.03, 4)
    base = 1000 * (1 + np.arange(benchmarks))
    runner = 0
    for i in range(commits):
        if rng.random() < 0.25:
            runner = int(rng.integers(4))
        level = base * runners[runner] * (1 + rng.normal(0, 0.01, benchmarks))
        values = {}
        for b in range(benchmarks):
            bump = 1 + PLANTED[2] if f"BM_{b}" == PLANTED[0] and i >= PLANTED[1] else 1
            reps = level[b] * bump * (1 + rng.normal(0, 0.002, 5))
            values[f"BM_{b}"] = {"real_time": list(reps), "cpu_time": list(reps)}
        synthetic.write(os.path.join(directory, f"{i:04d}-{commit_of(i)}.json"),
                        synthetic.run(START + 3600 * i, values, backend="perf_event"))


def run_files(directory: str) -> list[tuple[str, str]]:
    """(path, commit) of DIR's NNNN-SHA.json files, in name order."""
    out = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        commit = os.path.basename(path)[:-5].split("-", 1)[-1]
        out.append((path, ingest.check_commit(commit)))
    return out


def replay(files: list[tuple[str, str]], params: detect.Params) -> dict:
    """Judges and ingests each run in turn in a temporary database: the
    exit counts, and each exit-1 run's commit and regressed series."""
    tmp = tempfile.mkdtemp(prefix="judge_replay.")
    try:
        engine = store.open_store(os.path.join(tmp, "h.db"), create=True)
        exits, alarms = {0: 0, 1: 0, 4: 0}, []
        for i, (path, commit) in enumerate(files):
            prepared = ingest.prepare(path)
            if i:
                rows = judge.judge(engine, "main", params, prepared, None, [], 0.01).rows
                code = judge.exit_code(rows)
                exits[code] += 1
                if code == 1:
                    alarms.append((commit, {r.benchmark for r in rows
                                            if r.verdict == "regression"}))
            ingest.write(engine, prepared, commit, "main", START + 3600 * i, None)
        changes = detect.refresh(engine, "main", params).changes()
        engine.dispose()
    finally:
        shutil.rmtree(tmp)
    points = {(c.commit, c.key.benchmark) for c in changes}
    confirmed = [a for a in alarms if any((a[0], b) in points for b in a[1])]
    return {"exits": exits, "alarms": alarms, "confirmed": confirmed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge_replay.py", description=__doc__.split("\n")[0])
    parser.add_argument("dir", metavar="DIR")
    parser.add_argument("--generate", action="store_true", help="write a generated history first")
    parser.add_argument("--faithful", action="store_true", help="the reference detector")
    args = parser.parse_args(argv)
    if args.generate:
        if os.path.exists(args.dir) and os.listdir(args.dir):
            parser.error(f"{args.dir}: not empty; --generate writes into a new or empty directory")
        os.makedirs(args.dir, exist_ok=True)
        generate(args.dir)
    files = run_files(args.dir) if os.path.isdir(args.dir) else []
    if len(files) < 2:
        parser.error(f"{args.dir}: holds fewer than 2 NNNN-SHA.json run files; "
                     "give a history directory, or --generate one")
    result = replay(files, detect.Params(faithful=args.faithful))
    judged = len(files) - 1
    unconfirmed = len(result["alarms"]) - len(result["confirmed"])
    print(f"{judged} runs judged: exit 0 {result['exits'][0]}, exit 1 {result['exits'][1]}, "
          f"exit 4 {result['exits'][4]}")
    print(f"unconfirmed exit 1: {unconfirmed} ({100 * unconfirmed / judged:.1f}% of runs); "
          f"confirmed: {', '.join(c[:12] for c, _ in result['confirmed']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
