"""What history.py prints: the text and JSON of each verb, rendered from
the models detect and judge compute (detect.Refreshed and its changes,
judge.Judged); nothing here decides a verdict. Numbers go through
verdicts/numbers.py, so an exact count keeps every digit
(`4,075,360 -> 4,075,361 (+1, +0.00002%)`).

Each verb's output is a function here (text; JSON where the verb has
--format json); cli.py calls it and writes what it returns; only error
messages (stderr) stay in cli.py (docs/maintaining.md, "How to add": a
history verb)."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import time
from collections import Counter
from typing import TYPE_CHECKING

from pmubench.base.terminal import printable
from pmubench.verdicts import numbers
from pmubench.history import place

if TYPE_CHECKING:  # names in annotations only: ingest starts without scipy
    from pmubench.history import detect, ingest, judge

PROG = "history.py"

HEADLINES = {0: "OK: no regression", 1: "REGRESSION", 4: "INCONCLUSIVE: nothing judged"}
# How many names a one-line summary shows.
EXAMPLES = 3


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def finite(x: float | None) -> float | None:
    return x if x is None or math.isfinite(x) else None


def _shown(lines: list[str]) -> str:
    """Lines for the terminal, each with its control characters escaped
    (pmubench.base.terminal): a name can never forge a line of its own."""
    return "".join(printable(line) + "\n" for line in lines)


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def change_json(c: detect.Change, note: str | None) -> dict:
    return {"machine": c.key.machine, "benchmark": c.key.benchmark, "metric": c.key.metric,
            "commit": c.commit, "before": c.before, "after": c.after,
            "change": finite(c.change), "p_value": c.p_value, "kind": c.kind,
            "time": iso(c.time),
            "acknowledged": note is not None, "note": note,
            "text": numbers.change_text(c.before, c.after, c.p_value is None)}


def detect_json(branch: str, refreshed: detect.Refreshed, changes: list[detect.Change],
                notes: dict) -> str:
    return dumps({"branch": branch, "series": len(refreshed.keys),
                  "recomputed": refreshed.recomputed, "appended": refreshed.appended,
                  "change_points": [change_json(c, notes.get((c.key.id, c.commit)))
                                    for c in changes]})


def detect_text(branch: str, refreshed: detect.Refreshed, changes: list[detect.Change],
                notes: dict) -> str:
    points = "change point" if len(changes) == 1 else "change points"
    lines = [f"{len(changes)} {points} in {len(refreshed.keys)} series on {branch}"]
    for c in changes:
        exact = c.p_value is None
        test = "exact" if exact else f"p {c.p_value:.2g}"
        ack = " (acknowledged)" if (c.key.id, c.commit) in notes else ""
        text = numbers.change_text(c.before, c.after, exact)
        kind = " spike (returned)" if c.kind == "spike" else ""
        lines.append(f"{c.commit[:12]}{kind} {c.key.machine} {c.key.benchmark} {c.key.metric}: "
                     f"{text[:-1]}, {test}){ack}")
        lines += _bisect_line(refreshed, c)
    return _shown(lines)


def _bisect_line(refreshed: detect.Refreshed, c: detect.Change) -> list[str]:
    """For a step whose measured commit before it is not its parent (the
    checkout here, git rev-list, knows both): the scripts/bisect.sh command
    that finds the commit between them that made it."""
    state = refreshed.states.get(c.key.id)
    prev = (refreshed.runs.get(int(state.runs[c.index - 1]))
            if state is not None and c.index > 0 and c.kind == "step" else None)
    between = prev and subprocess.run(["git", "rev-list", "--count", f"{prev.commit}..{c.commit}"],
                                      capture_output=True, text=True, check=False)
    if not between or between.returncode != 0 or int(between.stdout or 0) < 2:
        return []
    regex = shlex.quote("^" + re.escape(c.key.benchmark) + "$")
    return [f"  {int(between.stdout)} commits since {prev.commit[:12]}, find which: scripts/bisect.sh "
            f"--good {prev.commit} --bad {c.commit} --benchmark {regex} "
            f"--metric {shlex.quote(c.key.metric)}"]


def row_json(r: judge.Row) -> dict:
    text = (numbers.change_text(r.baseline, r.head, r.exact)
            if r.baseline is not None else None)
    return {**r.__dict__, "change": finite(r.change), "text": text}


def judge_json(judged: judge.Judged, code: int) -> str:
    known = judged.known_run
    return dumps({"machine": judged.machine or None, "exit": code,
                  "already_in_history": ({"run": known[0], "commit": known[1]}
                                         if known else None),
                  "without_history": judged.without_history,
                  "nearest_machine": _nearest_json(judged.nearest),
                  "rows": [row_json(r) for r in judged.rows]})


def _nearest_json(nearest) -> dict | None:  # noqa: ANN001 - judge.Judged.nearest
    if nearest is None:
        return None
    name, differ = nearest
    return {"name": name, "differences": [{"fact": k, "run": mine, "history": theirs}
                                          for k, mine, theirs in differ]}


def _fact_text(value) -> str:  # noqa: ANN001 - a fact's JSON value
    return "absent" if value is None else value if isinstance(value, str) else json.dumps(value)


def _examples(names: list[str]) -> str:
    shown = ", ".join(names[:EXAMPLES])
    return shown + (", ..." if len(names) > EXAMPLES else "")


def _row_line(r: judge.Row) -> str:
    if r.baseline is None:
        return f"  {r.verdict:11} {r.benchmark} {r.metric}: {numbers.value_text(r.head, r.exact)} {r.reason}"
    text = numbers.change_text(r.baseline, r.head, r.exact)
    return f"  {r.verdict:11} {r.benchmark} {r.metric}: {text} {r.reason}"


def _unjudged_lines(judged: judge.Judged, branch: str) -> list[str]:
    """One line for the cases without history, one per other reason."""
    lines = []
    missing = judged.without_history
    if missing:
        total = len(dict.fromkeys([r.benchmark for r in judged.rows] + missing))
        lines.append(f"  {len(missing)} of {total} cases have no history on {branch} "
                     f"(new, or renamed: {_examples(missing)}); not judged")
    rest = [r for r in judged.rows if r.verdict == "unjudged" and r.benchmark not in missing]
    for reason, count in Counter(r.reason for r in rest).items():
        names = [f"{r.benchmark} {r.metric}" for r in rest if r.reason == reason]
        lines.append(f"  unjudged    {count} rows ({_examples(names)}): {reason}")
    return lines


def judge_text(judged: judge.Judged, code: int, head: str, branch: str) -> str:
    lines = [f"{HEADLINES[code]} ({head} against {branch} on {judged.machine})"]
    if judged.known_run:
        run, commit = judged.known_run
        lines.append(f"  {head} is already in the history (run {run}, commit "
                     f"{commit[:12]}): judged against the commits before it")
    lines += [_row_line(r) for r in judged.rows if r.verdict in ("regression", "improvement")]
    lines += _unjudged_lines(judged, branch)
    return _shown(lines)


def no_machine(head: str, db: str, machine: str | None, branch: str,
               nearest=None) -> str:  # noqa: ANN001 - judge.Judged.nearest
    """Exit 4's message: no machine of the history has the head's identity;
    the facts in which the nearest one differs, each named."""
    named = f" named {machine}" if machine else ""
    lines = [f"{PROG}: {head}: no history of its machine identity in {db}{named}; nothing "
             f"could be judged (ingest runs of this machine on {branch} first)"]
    if nearest is not None:
        name, differ = nearest
        facts = "; ".join(f"{k}: this run {_fact_text(mine)}, the history {_fact_text(theirs)}"
                          for k, mine, theirs in differ)
        lines.append(f"  the nearest machine of the history, {name}, differs in "
                     f"{len(differ)} fact(s): {facts}; record the same facts on both sides "
                     "(--benchmark_context=KEY=VALUE; ci_compare.sh --context KEY=VALUE)")
    return _shown(lines)


def ingested(p: ingest.Prepared, run: int | None, db: str, commit: str, branch: str) -> str:
    """An ingest's line for the run file p; db the --db value, shown
    without its password (place.shown reads a server's URL with
    SQLAlchemy: only the line that names it does)."""
    if run is None:
        return _shown([f"{PROG}: {p.path}: already in {place.shown(db)} (same content); "
                       "nothing added"])
    return _shown([f"{PROG}: {p.path}: run {run}, {p.value_count} values of "
                   f"{len(p.values)} series, commit {commit[:12]} on {branch}"])


def acknowledged(benchmark: str, metric: str, commit: str) -> str:
    return _shown([f"{PROG}: acknowledged {benchmark} {metric} at {commit[:12]}"])


def excluded(count: int, reason: str) -> str:
    return _shown([f"{PROG}: excluded {count} run(s): {reason}"])


def reported(outdir: str, pages: int) -> str:
    return _shown([f"{PROG}: wrote {os.path.join(outdir, 'index.html')} ({pages} machine pages)"])


def compacted(done, db: str, size_before: int | None,  # noqa: ANN001 - compact.Compacted
              size_after: int | None) -> str:
    """What compact changed: the runs and commits reduced per branch, the
    values and (SQLite) the file's size before and after."""
    older = f"older than the newest {done.keep} of each branch"
    if not done.runs:
        return _shown([f"{PROG}: {db}: nothing to compact: every run at a commit {older} "
                       f"is compacted already ({done.values_after:,} values)"])
    where = ", ".join(f"{runs} on {branch}" for branch, runs in sorted(done.branches.items()))
    lines = [f"{PROG}: {db}: compacted {done.runs} runs at {done.commits} commits {older} "
             f"({where}): each run's repetitions reduced to their median per series",
             f"  values {done.values_before:,} -> {done.values_after:,}"]
    if size_before is not None and size_after is not None:
        lines.append(f"  file {size_before / 1e6:.2f} MB -> {size_after / 1e6:.2f} MB "
                     f"({size_after / max(done.values_after, 1):.1f} bytes a value)")
    if done.stale:
        lines.append("  a compacted commit has several runs, whose median may have moved: "
                     "detect recomputes every series the next time it runs")
    return _shown(lines)


def upgraded(db: str, start: int, end: int) -> str:
    done = f" -> {end}" if end != start else " is current; nothing to do"
    return _shown([f"{PROG}: {db}: schema version {start}{done}"])
